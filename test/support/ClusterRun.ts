/**
 * One run of a cluster under kill -9: 2 API + 2 worker processes on a fresh PostgreSQL database
 * (on the `TEST_DATABASE_URL` server) and one anvil with the EIP-3009 test token.
 *
 * - The 4 processes start at the same moment on the empty database (the migration lock).
 * - Credentials through the operator CLI (partner, wallet app); merchants, a settlement destination
 *   and a webhook endpoint (a receiver verifying every signature) through the partner API.
 * - Orders in lanes spread over both APIs: merchant creates with an `Idempotency-Key`; for most,
 *   options → EIP-3009 signature (a viem local account) → confirm; the payments of one merchant are
 *   settled to its destination, half of the other's are refunded (`POST /v1/refunds` with a key)
 *   once succeeded.
 * - api-1 and worker-1 are killed with SIGKILL and started again: once, a third into the orders; or,
 *   for a soak, every `killEveryMs`. The others live throughout (their memory is what a leak shows in).
 * - For a soak, the chain is read through three RPC providers (a quorum of 2), one cut on and off,
 *   and every minute is sampled: requests, their p99, each live process's resident memory.
 *
 * Then the run waits until nothing is left to do. `ClusterChecks.ts` checks what it left.
 */
import { Chain, Migrations } from "@paygate/adapters"
import { readFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import type { Hex } from "viem"
import { expect } from "vitest"
import { type ClientStats, makeClusterClient } from "./ClusterClient.ts"
import { type CuttableProxy, startProxy } from "./CuttableProxy.ts"
import type { Answer } from "./Http.ts"
import type { LocalChainWorld } from "./LocalChainWorld.ts"
import { makePostgresWorld, type PostgresWorld } from "./PostgresWorld.ts"
import { type Receiver, startReceiver } from "./Receiver.ts"
import { admin, freePort, type Managed, managedApi, managedWorker, sleep } from "./ServiceProcess.ts"

const { anvilAccount } = Chain

/** How long an unanswered idempotency key is held: a key stuck longer than this (plus slack) is a bug. */
export const leaseMs = 2_000

/** How a run goes. */
export interface ClusterOptions {
  /** Orders to place; or, with `minutes`, orders are placed until that many minutes passed. */
  readonly orders?: number
  readonly minutes?: number
  /** Orders in flight at once. */
  readonly lanes: number
  /** At most this many orders started per minute (an offered rate below capacity); absent: as fast as the lanes go. */
  readonly ordersPerMinute?: number
  /** A kill of api-1 and worker-1 every this many ms (a soak); absent: one kill, a third into the orders. */
  readonly killEveryMs?: number
  /** Three RPC providers, one cut for this long every three times this long (a soak); absent: one. */
  readonly flapMs?: number
  /** The payment lifetime (`PAYMENT_LIFETIME_SECONDS`): unpaid orders expire within the run, and it waits for them; absent: they stay unpaid. */
  readonly paymentLifetimeSeconds?: number
}

/** One order: what the client asked and what it was answered. */
export interface Order {
  readonly i: number
  readonly key: string
  readonly referenceId: string
  readonly value: number
  readonly shop: "refund" | "settle"
  readonly api: number
  readonly pay: boolean
  readonly refund: boolean
  readonly payer: number
  paymentId?: string
  confirmed?: boolean
  confirmedAt?: number
  tokenAmount?: bigint
  refundId?: string
}

/** A minute of the run: the requests answered in it, their p99 (ms), each live process's resident memory (MB). */
export interface Sample {
  readonly minute: number
  readonly requests: number
  readonly p99: number
  readonly rssMb: Readonly<Record<string, number>>
}

/** What a test must release after a run, whatever happened (filled as the run goes). */
export interface ClusterResources {
  readonly processes: Array<Managed>
  readonly proxies: Array<CuttableProxy>
  world?: PostgresWorld
  receiver?: Receiver
  sql?: postgres.Sql
}

/** Stops everything `resources` holds. */
export const releaseCluster = async (resources: ClusterResources) => {
  try {
    await resources.sql?.end()
    await Promise.all(resources.processes.map((p) => p.stop(2_000)))
    await resources.receiver?.close()
    await Promise.all(resources.proxies.map((p) => p.close()))
  } finally {
    await resources.world?.close()
  }
}

/** The convergence state: what is left to do for the run's partner. */
export interface Leftover {
  processing: number
  /** Unpaid payments not yet expired; counted only when the run expires them. */
  unexpired: number
  undecided: number
  pending_payouts: number
  unprocessed: number
  pending_deliveries: number
  events: number
}

const residentMb = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024)
  } catch {
    return undefined // gone: killed a moment ago
  }
}

const p99Of = (values: ReadonlyArray<number>) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!
}

/** Runs the cluster of `chainWorld` as `options` say, releasing through `resources`; answers what the checks read. */
export const runCluster = async (chainWorld: LocalChainWorld, resources: ClusterResources, options: ClusterOptions) => {
  const startedAt = Date.now()
  const { chain, client } = chainWorld
  const w = await makePostgresWorld(process.env.TEST_DATABASE_URL!) // a fresh, empty database (nothing runs on it yet)
  resources.world = w
  const r = await startReceiver()
  resources.receiver = r
  const base = Chain.LocalChain.settingsFor(chain, 1)
  const proxies = options.flapMs === undefined ? [] : await Promise.all([0, 1, 2].map(() => startProxy(chain.node.rpcUrl)))
  resources.proxies.push(...proxies)
  const chains = JSON.stringify(proxies.length === 0 ? base : {
    ...base,
    chains: base.chains.map((c) => ({ ...c, rpcUrl: proxies[0]!.url, additionalRpcUrls: [proxies[1]!.url, proxies[2]!.url], rpcQuorum: 2 }))
  })
  const common = { PAYGATE_CHAINS: chains, WEBHOOK_ALLOW_PRIVATE: "true" }
  const apiEnv = {
    ...common,
    DATABASE_URL: w.url,
    WEBHOOK_SECRET_KEY: w.keyText,
    OPTION_ID_SECRET: randomBytes(32).toString("base64"),
    WORKER_IN_PROCESS: "false",
    IDEMPOTENCY_LEASE_MS: String(leaseMs),
    RATE_LIMIT_PER_SECOND: "1000000",
    RATE_LIMIT_BURST: "1000000",
    ...(options.paymentLifetimeSeconds === undefined ? {} : { PAYMENT_LIFETIME_SECONDS: String(options.paymentLifetimeSeconds) })
  }
  const workerEnv = {
    ...common,
    WORKER_POLL_MS: "50",
    WORKER_OUTBOX_LEASE_MS: "2000",
    WORKER_DELIVERY_LEASE_MS: "3000",
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_SCHEDULE_MS: "500,1000,2000,4000",
    EXECUTOR_POLL_MS: "100",
    // A killed worker's payments and payouts are taken over after this lease (default 120 s).
    EXECUTOR_LEASE_MS: "15000",
    PAYOUT_LEASE_MS: "15000",
    // The chain's scan too (default 60 s): the ledger's receipts wait for it when the killed worker held it.
    WATCHER_LEASE_MS: "5000",
    EXECUTOR_PENDING_RECHECK_MS: "200",
    EXECUTOR_UNKNOWN_RECHECK_MS: "500",
    EXECUTOR_DROPPED_RESEND_MS: "2000",
    PAYOUT_POLL_MS: "100",
    PAYOUT_PENDING_RECHECK_MS: "200",
    PAYOUT_UNKNOWN_RECHECK_MS: "500",
    PAYOUT_RETRY_MS: "1000"
  }
  const apis = [managedApi("api-1", await freePort(), apiEnv), managedApi("api-2", await freePort(), apiEnv)]
  const workers = [managedWorker("worker-1", () => w.spawnWorker(workerEnv)), managedWorker("worker-2", () => w.spawnWorker(workerEnv))]
  const processes = [...apis, ...workers]
  resources.processes.push(...processes)
  const outputs = (chars?: number) => processes.map((p) => p.outputs(chars)).join("\n")

  // ---- All four at the same moment on the empty database.
  const starting = processes.map((p) => p.spawn())
  await Promise.all(starting.map((s) => s.ready)).catch((error) => {
    throw new Error(`${error.message}\n${outputs()}`)
  })
  const startedAll = Date.now() - startedAt
  const sql = postgres(w.url, { max: 2, onnotice: () => {} })
  resources.sql = sql
  const migrations = await sql<Array<{ migration_id: number; name: string }>>`
    SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`
  const migratedBy = processes.filter((p) => p.current().output().includes("migrations applied")).map((p) => p.name)
  const sandboxPartners = (await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM partners WHERE name = 'Sandbox partner'`)[0]!.n
  expect(migrations.map((m) => m.migration_id)).toEqual(Object.keys(Migrations.migrations).map((k) => Number(k.slice(0, 4))))
  expect(migratedBy.length, outputs()).toBe(1)
  // Four processes started at once bootstrapped one sandbox partner between them.
  expect(sandboxPartners, outputs()).toBe(1)

  // ---- Credentials: the operator CLI, then the partner API.
  const partner = await admin(w.url, "partner", "create", "--name", "Cluster partner", "--sandbox")
  const app = await admin(w.url, "app", "create", "--name", "Cluster wallet", "--sandbox")
  const partnerHeaders = { "api-key": partner.apiKey as string }
  const { stats, call } = makeClusterClient(() => apis.map((a) => a.url))
  const post = async (path: string, body: unknown, key: string) => {
    const answer = await call(0, "POST", path, { headers: partnerHeaders, body, key })
    if (answer.status >= 300) throw new Error(`POST ${path} answered ${answer.status} ${answer.text}`)
    return answer.body
  }
  // The endpoint first: it hears every event, the destination's too.
  const endpoint = await post("/v1/webhooks", { url: r.url("/hooks") }, "w-hooks")
  r.expect("/hooks", endpoint.secret)
  const refundShop = (await post("/v1/merchants", { merchantName: "Refund shop" }, "m-refund")).merchantId as string
  const settleShop = (await post("/v1/merchants", { merchantName: "Settle shop" }, "m-settle")).merchantId as string
  const destination = anvilAccount(8).address
  await post(`/v1/merchants/${settleShop}/settlements/crypto`, {
    settlements: [{ asset: chain.usdcAssetId, destination: `${chain.chainId}:${destination}` }]
  }, "s-settle")

  // ---- The orders.
  const run = randomBytes(3).toString("hex")
  const orders: Array<Order> = []
  const loadStarted = Date.now()
  const loadEnds = options.minutes === undefined ? Infinity : loadStarted + options.minutes * 60_000
  const nextOrder = (): Order | undefined => {
    const i = orders.length
    if (options.minutes === undefined ? i >= (options.orders ?? 0) : Date.now() >= loadEnds) return undefined
    const order: Order = {
      i,
      key: `order-${run}-${i}`,
      referenceId: `cluster-${run}-${i}`,
      value: 100 + i, // unique amounts: each payment's and payout's transfer is recognisable on chain
      shop: i % 2 === 0 ? "refund" : "settle",
      api: Math.floor(i / 2) % 2,
      pay: i % 4 !== 3,
      refund: i % 4 === 0,
      payer: 1 + (i % 7)
    }
    orders.push(order)
    return order
  }
  const merchantOf = (o: Order) => (o.shop === "refund" ? refundShop : settleShop)
  const wallet = (o: Order) => ({ "app-id": app.appId as string, "client-id": `cluster-${o.i}`, "sdk-name": "Cluster wallet" })
  const fail = (o: Order, step: string, answer: Answer) => {
    throw new Error(`order ${o.i} ${step}: ${answer.status} ${answer.text.slice(0, 300)}`)
  }

  const kills: Array<{ name: string; at: number; back: number }> = []
  const waitSucceeded = async (o: Order) => {
    const deadline = Date.now() + 200_000
    for (;;) {
      const answer = await call(o.api, "GET", `/v1/gateway/payment/${o.paymentId}/status?maxPollMs=2000`, { headers: wallet(o), timed: false })
      if (answer.status !== 200) fail(o, "status", answer)
      if (answer.body.status === "succeeded") return
      if (answer.body.isFinal) fail(o, "status (final, not succeeded)", answer)
      if (Date.now() > deadline) throw new Error(`order ${o.i}: payment ${o.paymentId} still ${answer.body.status}\n${await stuckReport(o)}`)
    }
  }
  // What a payment that never settled left behind: its row, its transaction on chain, the kills, the logs.
  const stuckReport = async (o: Order) => {
    const [row] = await sql<Array<Record<string, unknown>>>`
      SELECT status, commitment ->> 'txHash' AS tx_hash, chain_due_at::text, chain_lease_until::text, updated_at::text
      FROM payments WHERE id = ${o.paymentId!}`
    const txHash = row?.tx_hash as Hex | null | undefined
    const onChain = txHash
      ? await Promise.all([
        client.getTransaction({ hash: txHash }).then((t) => `nonce ${t.nonce}, block ${t.blockNumber}`, (e) => `no transaction (${e.shortMessage ?? e})`),
        client.getTransactionReceipt({ hash: txHash }).then((x) => `receipt ${x.status}`, (e) => `no receipt (${e.shortMessage ?? e})`)
      ]).then((parts) => parts.join("; "))
      : "no transaction recorded"
    const mentions = processes.flatMap((p) => p.instances.flatMap((x) => x.output().split("\n").filter((l) => l.includes(o.paymentId!))))
    const workerLogs = workers.flatMap((p) =>
      p.instances.map((x, n) => `--- ${p.name} #${n + 1}:\n${x.output().split("\n").filter((l) => !l.includes(`"level":"INFO"`)).join("\n").slice(-6_000)}`))
    return [
      `now ${Date.now()}, confirmed at ${o.confirmedAt}; kills ${JSON.stringify(kills)}`,
      `row ${JSON.stringify(row)}; on chain: ${onChain}`,
      `log lines naming it:\n${mentions.join("\n")}`,
      `worker warnings and errors:\n${workerLogs.join("\n")}`
    ].join("\n")
  }
  const refunds: Array<Promise<void>> = []
  // A soak goes on past an order whose payment is late, to its convergence and checks, which then tell stalled from slow.
  const late: Array<string> = []
  const refund = async (o: Order) => {
    if (options.minutes !== undefined) {
      const waited = await waitSucceeded(o).then(() => true, (error: Error) => (late.push(error.message.split("\n")[0]!), false))
      if (!waited) return
    } else {
      await waitSucceeded(o)
    }
    const answer = await call(o.api, "POST", "/v1/refunds", { headers: partnerHeaders, body: { paymentId: o.paymentId }, key: `refund-${o.key}` })
    // The refund commits with its response: a retry after a kill replays it or makes it, never already_refunded.
    if (answer.status === 201) o.refundId = answer.body.refundId
    else fail(o, "refund", answer)
  }

  const killAndRestart = async (p: Managed) => {
    await p.kill9()
    const at = Date.now()
    await sleep(1_000)
    await p.start()
    kills.push({ name: p.name, at, back: Date.now() })
  }
  const killBoth = () => Promise.all([killAndRestart(apis[0]!), killAndRestart(workers[0]!)]).then(() => {})
  const kills9: Array<Promise<void>> = []
  const timers: Array<NodeJS.Timeout> = []
  if (options.killEveryMs !== undefined) timers.push(setInterval(() => kills9.push(killBoth()), options.killEveryMs))
  if (options.flapMs !== undefined) {
    const flaky = proxies[2]!
    timers.push(setInterval(() => {
      flaky.cut()
      setTimeout(() => flaky.restore(), options.flapMs)
    }, 3 * options.flapMs))
  }
  const samples: Array<Sample> = []
  timers.push(setInterval(() => {
    const now = Date.now()
    const minute = stats.latencies.filter((l) => l.at > now - 60_000).map((l) => l.ms)
    const rssMb: Record<string, number> = {}
    for (const p of processes) {
      const mb = residentMb(p.current().child.pid)
      if (mb !== undefined) rssMb[p.name] = mb
    }
    samples.push({ minute: samples.length + 1, requests: minute.length, p99: p99Of(minute), rssMb })
  }, 60_000))

  const firstBlock = await client.getBlockNumber()
  // Order i starts no earlier than i / ordersPerMinute minutes into the load.
  const paced = async (o: Order) => {
    if (options.ordersPerMinute !== undefined) await sleep(Math.max(0, loadStarted + (o.i * 60_000) / options.ordersPerMinute - Date.now()))
  }
  const lanes = Array.from({ length: options.lanes }, async () => {
    for (let o = nextOrder(); o !== undefined; o = nextOrder()) {
      await paced(o)
      const body = { amount: { unit: "iso4217/USD", value: String(o.value) }, referenceId: o.referenceId }
      const createdResponse = await call(o.api, "POST", "/v1/merchant/payment", {
        headers: { ...partnerHeaders, "merchant-id": merchantOf(o) },
        body,
        key: o.key
      })
      if (createdResponse.status !== 200) fail(o, "create", createdResponse)
      o.paymentId = createdResponse.body.paymentId
      if (options.killEveryMs === undefined && o.i === Math.floor((options.orders ?? 0) * 0.35)) kills9.push(killBoth())
      if (!o.pay) continue
      const payer = anvilAccount(o.payer)
      const optionsResponse = await call(o.api, "POST", `/v1/gateway/payment/${o.paymentId}/options`, {
        headers: wallet(o),
        body: { accounts: [`${chain.chainId}:${payer.address}`] }
      })
      if (optionsResponse.status !== 200) fail(o, "options", optionsResponse)
      const option = optionsResponse.body.options.find((x: any) => x.actions[0]?.data?.method === "eth_signTypedData_v4")
      if (option === undefined) fail(o, "options (no EIP-3009 option)", optionsResponse)
      const signature = await Chain.LocalWallet.signOption(option, payer.privateKey)
      const confirmed = await call(o.api, "POST", `/v1/gateway/payment/${o.paymentId}/confirm`, {
        headers: wallet(o),
        body: { optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null }
      })
      if (confirmed.status !== 200) fail(o, "confirm", confirmed)
      o.confirmed = true
      o.confirmedAt = Date.now()
      o.tokenAmount = BigInt(option.amount.value)
      if (o.refund) refunds.push(refund(o))
    }
  })
  try {
    await Promise.all(lanes)
  } finally {
    for (const timer of timers) clearInterval(timer)
  }
  await Promise.all(kills9)
  for (const proxy of proxies) proxy.restore()
  const loadMs = Date.now() - loadStarted
  await Promise.all(refunds)
  const requestsMs = Date.now() - loadStarted

  // ---- Convergence: no payment processing, no payout pending, every event processed and delivered.
  const partnerId = partner.partnerId as string
  const expiring = options.paymentLifetimeSeconds !== undefined
  const state = async () => {
    const [row] = await sql<Array<Leftover>>`
      SELECT
        (SELECT count(*)::int FROM payments WHERE partner_id = ${partnerId} AND status = 'processing') AS processing,
        (SELECT count(*)::int FROM payments WHERE partner_id = ${partnerId} AND status = 'requires_action' AND ${expiring}) AS unexpired,
        (SELECT count(*)::int FROM payments WHERE partner_id = ${partnerId} AND status = 'succeeded' AND NOT settlement_decided) AS undecided,
        (SELECT count(*)::int FROM payouts WHERE status = 'pending') AS pending_payouts,
        (SELECT count(*)::int FROM outbox_events WHERE processed_at IS NULL) AS unprocessed,
        (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending_deliveries,
        (SELECT count(*)::int FROM outbox_events WHERE partner_id = ${partnerId}) AS events`
    return row!
  }
  const convergeStarted = Date.now()
  let last = await state()
  const receivedIds = () => new Set(r.on("/hooks").filter((x) => x.verified).map((x) => x.webhookId))
  while (
    last.processing + last.unexpired + last.undecided + last.pending_payouts + last.unprocessed + last.pending_deliveries > 0 ||
    receivedIds().size < last.events
  ) {
    if (Date.now() - convergeStarted > (options.minutes === undefined ? 180_000 : 900_000 + 1_000 * (options.paymentLifetimeSeconds ?? 0))) break
    await sleep(500)
    last = await state()
  }
  const convergeMs = Date.now() - convergeStarted
  await sleep(500) // anything sent twice would show up now

  return {
    startedAt,
    chain,
    client,
    world: w,
    receiver: r,
    sql,
    chains,
    processes,
    workers,
    outputs,
    partnerId,
    destination,
    expiring,
    orders,
    late,
    stats: stats as ClientStats,
    kills,
    samples,
    startedAll,
    migratedBy,
    sandboxPartners,
    firstBlock,
    loadMs,
    requestsMs,
    convergeMs,
    last
  }
}

/** What {@link runCluster} answers. */
export type ClusterRun = Awaited<ReturnType<typeof runCluster>>
