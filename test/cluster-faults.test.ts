/**
 * Several API processes and several workers under faults, with real processes:
 * 2 API processes + 2 worker processes + PostgreSQL (a fresh database on the `TEST_DATABASE_URL`
 * server) + one anvil with the EIP-3009 test token.
 *
 * - The 4 processes start at the same moment on the empty database (the migration lock).
 * - Credentials through the operator CLI (partner, wallet app); merchants, a settlement destination
 *   and a webhook endpoint (a receiver verifying every signature) through the partner API.
 * - Load, 16 orders in flight spread over both APIs: merchant creates with an `Idempotency-Key`;
 *   for most, options → EIP-3009 signature (a viem local account) → confirm; the payments of one
 *   merchant are settled to its destination, half of the other's are refunded (`POST /v1/refunds`
 *   with a key) once succeeded.
 * - Mid-load, one API process and one worker are killed with SIGKILL and started again. The client
 *   retries a request that got no answer (on the other API), an `idempotency_conflict` (in flight)
 *   and a 5xx, always with the same key and body.
 *
 * Then, from the database, the chain and the receiver: one payment per key; one transfer on chain
 * per accepted confirm; one payout transfer per settlement and per refund; every outbox event
 * delivered at least once, signed; no 500 seen by the client; no key stuck after the lease; the
 * ledger equals the chain at every collection and deposit address, and every ledger transaction balances.
 *
 * Size: `CLUSTER_ORDERS` orders (default 320).
 */
import { Chain, Database, Migrations } from "@paygate/adapters"
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import { decodeFunctionData, type Hex, parseAbiItem } from "viem"
import { afterAll, describe, expect, it } from "vitest"
import { auditLedger } from "./support/LedgerAudit.ts"
import { localChainForFile } from "./support/LocalChainWorld.ts"
import { makePostgresWorld, type PostgresWorld } from "./support/PostgresWorld.ts"
import { type Receiver, startReceiver } from "./support/Receiver.ts"
import { type Answer, forEachLimited, isConnectionFailure, send } from "./support/Http.ts"
import { admin, freePort, type Managed, managedApi, managedWorker, sleep } from "./support/ServiceProcess.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const leaseMs = 2_000
const orderCount = Number(process.env.CLUSTER_ORDERS ?? 320)
const lanes = 16
const { anvilAccount } = Chain
const tokenAbi = Chain.Eip3009.eip3009TokenAbi
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")
const authorizationUsedEvent = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)")
const zeroAddress = "0x0000000000000000000000000000000000000000"

/** What the client saw, over every request. */
interface ClientStats {
  requests: number
  retries: number
  connectionFailures: number
  status500: number
  inFlightConflicts: number
  rateLimited: number
  /** Per idempotency key: first and last `idempotency_conflict` (in flight). */
  readonly conflicts: Map<string, { first: number; last: number }>
  readonly unexpected: Array<string>
}

interface Order {
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

// Never skipped for want of anvil: it comes with the npm install, and a missing binary fails the
// chain's start (the PostgreSQL server is the global set-up's; PostgresInCi fails a run without it).
describe.runIf(serverUrl !== undefined && serverUrl !== "")(
  "A cluster of 2 API and 2 worker processes on PostgreSQL and anvil, under kill -9",
  () => {
    const chainWorld = localChainForFile()
    let world: PostgresWorld | undefined
    let receiver: Receiver | undefined
    const processes: Array<Managed> = []

    afterAll(async () => {
      try {
        await Promise.all(processes.map((p) => p.stop(2_000)))
        await receiver?.close()
      } finally {
        await world?.close()
      }
    })

    it("creates, confirms, webhooks, settlements and refunds while an API and a worker are killed: nothing lost, nothing done twice", async () => {
      const startedAt = Date.now()
      const { chain } = chainWorld()
      const client = chainWorld().client
      world = await makePostgresWorld(serverUrl!) // a fresh, empty database (nothing runs on it yet)
      const w = world
      receiver = await startReceiver()
      const r = receiver
      const chains = JSON.stringify(Chain.LocalChain.settingsFor(chain, 1))
      const common = { PAYGATE_CHAINS: chains, WEBHOOK_ALLOW_PRIVATE: "true" }
      const apiEnv = {
        ...common,
        DATABASE_URL: w.url,
        WEBHOOK_SECRET_KEY: w.keyText,
        OPTION_ID_SECRET: randomBytes(32).toString("base64"),
        WORKER_IN_PROCESS: "false",
        IDEMPOTENCY_LEASE_MS: String(leaseMs),
        RATE_LIMIT_PER_SECOND: "1000000",
        RATE_LIMIT_BURST: "1000000"
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
      processes.push(...apis, ...workers)
      const outputs = (chars?: number) => processes.map((p) => p.outputs(chars)).join("\n")

      // ---- All four at the same moment on the empty database.
      const starting = processes.map((p) => p.spawn())
      await Promise.all(starting.map((s) => s.ready)).catch((error) => {
        throw new Error(`${error.message}\n${outputs()}`)
      })
      const startedAll = Date.now() - startedAt
      const sql = postgres(w.url, { max: 2, onnotice: () => {} })
      try {
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
        const post = async (path: string, body: unknown, key: string) => {
          const answer = await send(apis[0]!.url, "POST", path, { headers: { ...partnerHeaders, "idempotency-key": key }, body })
          if (answer.status >= 300) throw new Error(`POST ${path} answered ${answer.status} ${answer.text}`)
          return answer.body
        }
        const refundShop = (await post("/v1/merchants", { merchantName: "Refund shop" }, "m-refund")).merchantId as string
        const settleShop = (await post("/v1/merchants", { merchantName: "Settle shop" }, "m-settle")).merchantId as string
        const destination = anvilAccount(8).address
        await post(`/v1/merchants/${settleShop}/settlements/crypto`, {
          settlements: [{ asset: chain.usdcAssetId, destination: `${chain.chainId}:${destination}` }]
        }, "s-settle")
        const endpoint = await post("/v1/webhooks", { url: r.url("/hooks") }, "w-hooks")
        r.expect("/hooks", endpoint.secret)

        // ---- The client: retries what got no answer (on the other API), in-flight conflicts and 5xx.
        const stats: ClientStats = {
          requests: 0,
          retries: 0,
          connectionFailures: 0,
          status500: 0,
          inFlightConflicts: 0,
          rateLimited: 0,
          conflicts: new Map(),
          unexpected: []
        }
        // Like a load balancer's health check: a process that did not answer gets no request for 500 ms.
        const downUntil = [0, 0]
        const call = async (api: number, method: string, path: string, options: { headers: Record<string, string>; body?: unknown; key?: string }) => {
          const headers = options.key === undefined ? options.headers : { ...options.headers, "idempotency-key": options.key }
          const deadline = Date.now() + 60_000
          let target = downUntil[api]! > Date.now() ? 1 - api : api
          for (let attempt = 0;; attempt++) {
            if (attempt > 0) stats.retries++
            if (Date.now() > deadline) throw new Error(`${method} ${path} (key ${options.key}) got no final answer within 60 s`)
            stats.requests++
            let answer: Answer
            try {
              answer = await send(apis[target]!.url, method, path, { headers, body: options.body, timeoutMs: 40_000 })
            } catch (error) {
              if (!isConnectionFailure(error)) throw error
              stats.connectionFailures++
              downUntil[target] = Date.now() + 500
              target = 1 - target // the load balancer sends the retry to the other process
              await sleep(100)
              continue
            }
            if (answer.status >= 500) {
              stats.status500++
              stats.unexpected.push(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`)
              await sleep(200)
              continue
            }
            if (answer.status === 429) {
              stats.rateLimited++
              await sleep(100)
              continue
            }
            if (answer.status === 409 && answer.body?.code === "idempotency_conflict" && options.key !== undefined) {
              stats.inFlightConflicts++
              const now = Date.now()
              const span = stats.conflicts.get(options.key) ?? { first: now, last: now }
              span.last = now
              stats.conflicts.set(options.key, span)
              await sleep(250)
              continue
            }
            return answer
          }
        }

        // ---- The orders.
        const run = randomBytes(3).toString("hex")
        const orders: Array<Order> = Array.from({ length: orderCount }, (_, i) => ({
          i,
          key: `order-${run}-${i}`,
          referenceId: `cluster-${run}-${i}`,
          value: 100 + i, // unique amounts: each payment's and payout's transfer is recognisable on chain
          shop: i % 2 === 0 ? "refund" : "settle",
          api: Math.floor(i / 2) % 2,
          pay: i % 4 !== 3,
          refund: i % 4 === 0,
          payer: 1 + (i % 7)
        }))
        const merchantOf = (o: Order) => (o.shop === "refund" ? refundShop : settleShop)
        const wallet = (o: Order) => ({ "app-id": app.appId as string, "client-id": `cluster-${o.i}`, "sdk-name": "Cluster wallet" })
        const fail = (o: Order, step: string, answer: Answer) => {
          throw new Error(`order ${o.i} ${step}: ${answer.status} ${answer.text.slice(0, 300)}`)
        }

        const waitSucceeded = async (o: Order) => {
          const deadline = Date.now() + 200_000
          for (;;) {
            const answer = await call(o.api, "GET", `/v1/gateway/payment/${o.paymentId}/status?maxPollMs=2000`, { headers: wallet(o) })
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
              client.getTransactionReceipt({ hash: txHash }).then((r) => `receipt ${r.status}`, (e) => `no receipt (${e.shortMessage ?? e})`)
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
        const refund = async (o: Order) => {
          await waitSucceeded(o)
          const answer = await call(o.api, "POST", "/v1/refunds", { headers: partnerHeaders, body: { paymentId: o.paymentId }, key: `refund-${o.key}` })
          // The refund commits with its answer: a retry after a kill replays it or makes it, never already_refunded.
          if (answer.status === 201) o.refundId = answer.body.refundId
          else fail(o, "refund", answer)
        }

        let created = 0
        let killRun: Promise<void> | undefined
        const kills: Array<{ name: string; at: number; back: number }> = []
        const killAndRestart = async (p: Managed) => {
          await p.kill9()
          const at = Date.now()
          await sleep(1_000)
          await p.start()
          kills.push({ name: p.name, at, back: Date.now() })
        }
        const firstBlock = await client.getBlockNumber()
        const loadStarted = Date.now()
        await forEachLimited(orders, lanes, async (o) => {
          const body = { amount: { unit: "iso4217/USD", value: String(o.value) }, referenceId: o.referenceId }
          const createdAnswer = await call(o.api, "POST", "/v1/merchant/payment", {
            headers: { ...partnerHeaders, "merchant-id": merchantOf(o) },
            body,
            key: o.key
          })
          if (createdAnswer.status !== 200) fail(o, "create", createdAnswer)
          o.paymentId = createdAnswer.body.paymentId
          created++
          if (created === Math.floor(orderCount * 0.35)) killRun = Promise.all([killAndRestart(apis[0]!), killAndRestart(workers[0]!)]).then(() => {})
          if (!o.pay) return
          const payer = anvilAccount(o.payer)
          const optionsAnswer = await call(o.api, "POST", `/v1/gateway/payment/${o.paymentId}/options`, {
            headers: wallet(o),
            body: { accounts: [`${chain.chainId}:${payer.address}`] }
          })
          if (optionsAnswer.status !== 200) fail(o, "options", optionsAnswer)
          const option = optionsAnswer.body.options.find((x: any) => x.actions[0]?.data?.method === "eth_signTypedData_v4")
          if (option === undefined) fail(o, "options (no EIP-3009 option)", optionsAnswer)
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
        })
        await killRun
        const loadMs = Date.now() - loadStarted
        await Promise.all(refunds)
        const requestsMs = Date.now() - loadStarted

        // ---- Convergence: no payment processing, no payout pending, every event processed and delivered.
        const partnerId = partner.partnerId as string
        const state = async () => {
          const [row] = await sql<Array<{ processing: number; undecided: number; pending_payouts: number; unprocessed: number; pending_deliveries: number; events: number }>>`
            SELECT
              (SELECT count(*)::int FROM payments WHERE partner_id = ${partnerId} AND status = 'processing') AS processing,
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
          last.processing + last.undecided + last.pending_payouts + last.unprocessed + last.pending_deliveries > 0 ||
          receivedIds().size < last.events
        ) {
          if (Date.now() - convergeStarted > 180_000) break
          await sleep(500)
          last = await state()
        }
        const convergeMs = Date.now() - convergeStarted
        await sleep(500) // anything sent twice would show up now

        // ---- The database: one payment per key, the right statuses, one payout per settlement and refund.
        const payments = await sql<Array<{ id: string; reference_id: string; status: string; commitment: any; merchant_id: string }>>`
          SELECT id, reference_id, status, commitment, merchant_id FROM payments WHERE partner_id = ${partnerId}`
        const byReference = new Map<string, Array<(typeof payments)[number]>>()
        for (const p of payments) byReference.set(p.reference_id, [...(byReference.get(p.reference_id) ?? []), p])
        const duplicatePayments = orders.filter((o) => (byReference.get(o.referenceId)?.length ?? 0) > 1).length
        const lostPayments = orders.filter((o) => (byReference.get(o.referenceId)?.length ?? 0) === 0).length
        const wrongId = orders.filter((o) => byReference.get(o.referenceId)?.[0]?.id !== o.paymentId).length
        const payouts = await sql<Array<{ payment_id: string; kind: string; status: string; recipient: string; value: string; tx_hash: string | null; attempts: number }>>`
          SELECT payment_id, kind, status, recipient, value::text AS value, tx_hash, attempts FROM payouts`
        const refundRows = await sql<Array<{ payment_id: string; n: number }>>`SELECT payment_id, count(*)::int AS n FROM refunds GROUP BY payment_id`

        // ---- The chain: transfers in (one per confirm) and out (one per payout), executor transactions.
        const collection = chain.collectionAddress.toLowerCase()
        const transfers = await client.getLogs({ address: chain.contracts.usdc, event: transferEvent, fromBlock: 0n, toBlock: "latest" })
        const usedAuthorizations = await client.getLogs({ address: chain.contracts.usdc, event: authorizationUsedEvent, fromBlock: 0n, toBlock: "latest" })
        const inbound = transfers.filter((t) => t.args.to!.toLowerCase() === collection && t.args.from !== zeroAddress)
        const outbound = transfers.filter((t) => t.args.from!.toLowerCase() === collection)
        const latestBlock = await client.getBlockNumber()
        const executor = chain.executorAddress.toLowerCase()
        const executorTxs: Array<{ nonce: string; hash: Hex }> = []
        for (let n = firstBlock + 1n; n <= latestBlock; n++) {
          const block = await client.getBlock({ blockNumber: n, includeTransactions: true })
          for (const tx of block.transactions) {
            if (tx.from.toLowerCase() !== executor) continue
            const decoded = decodeFunctionData({ abi: tokenAbi, data: tx.input })
            executorTxs.push({ nonce: String((decoded.args as ReadonlyArray<unknown>)[5]).toLowerCase(), hash: tx.hash })
          }
        }
        const reverted = (await Promise.all(executorTxs.map((t) => client.getTransactionReceipt({ hash: t.hash })))).filter((x) => x.status !== "success").length

        const confirmedOrders = orders.filter((o) => o.confirmed === true)
        const paymentById = new Map(payments.map((p) => [p.id, p]))
        let transferDuplicates = 0
        let transferMissing = 0
        for (const o of confirmedOrders) {
          const p = paymentById.get(o.paymentId!)!
          const nonce = (p.commitment.authorization.nonce as string).toLowerCase()
          const payer = anvilAccount(o.payer).address.toLowerCase()
          const used = usedAuthorizations.filter((l) => l.args.nonce!.toLowerCase() === nonce && l.args.authorizer!.toLowerCase() === payer).length
          const moved = inbound.filter((t) => t.args.from!.toLowerCase() === payer && t.args.value === o.tokenAmount).length
          if (used > 1 || moved > 1) transferDuplicates++
          if (used === 0 || moved === 0) transferMissing++
        }
        const executorByNonce = new Map<string, number>()
        for (const t of executorTxs) executorByNonce.set(t.nonce, (executorByNonce.get(t.nonce) ?? 0) + 1)
        const executorRepeats = [...executorByNonce.values()].filter((n) => n > 1).length

        const expectedSettlements = confirmedOrders.filter((o) => o.shop === "settle")
        const expectedRefunds = confirmedOrders.filter((o) => o.refund)
        let payoutDuplicates = 0
        let payoutMissing = 0
        for (const [o, kind] of [...expectedSettlements.map((o) => [o, "settlement"] as const), ...expectedRefunds.map((o) => [o, "refund"] as const)]) {
          const rows = payouts.filter((x) => x.payment_id === o.paymentId && x.kind === kind)
          const completed = rows.filter((x) => x.status === "completed")
          const recipient = kind === "settlement" ? destination.toLowerCase() : anvilAccount(o.payer).address.toLowerCase()
          const moved = outbound.filter((t) => t.args.to!.toLowerCase() === recipient && t.args.value === o.tokenAmount).length
          if (completed.length > 1 || moved > 1) payoutDuplicates++
          if (completed.length === 0 || moved === 0) payoutMissing++
        }
        const refundDuplicates = refundRows.filter((x) => x.n > 1).length

        // ---- The webhooks: every outbox event of the partner delivered (signed) at least once.
        const events = await sql<Array<{ id: string; type: string }>>`SELECT id, type FROM outbox_events WHERE partner_id = ${partnerId}`
        const received = r.on("/hooks")
        const counts = new Map<string, number>()
        for (const x of received) counts.set(x.webhookId, (counts.get(x.webhookId) ?? 0) + 1)
        const undelivered = events.filter((e) => !counts.has(e.id)).length
        const deliveredTwice = [...counts.values()].filter((n) => n > 1).length
        const unverified = received.filter((x) => !x.verified).length
        const settledEvents = events.filter((e) => e.type === "payment.settled").length

        // How long chain work waited: confirm answered → payment.succeeded; payout created → completed.
        const succeededAt = new Map(
          (await sql<Array<{ payment_id: string; at: string }>>`
            SELECT payment_id, min(created_at)::text AS at FROM outbox_events WHERE partner_id = ${partnerId} AND type = 'payment.succeeded' GROUP BY payment_id`)
            .map((x) => [x.payment_id, Number(x.at)])
        )
        const chainWaits = confirmedOrders.map((o) => (succeededAt.get(o.paymentId!) ?? Date.now()) - o.confirmedAt!)
        const payoutWaits = (await sql<Array<{ ms: string }>>`SELECT (completed_at - created_at)::text AS ms FROM payouts WHERE completed_at IS NOT NULL`)
          .map((x) => Number(x.ms))
        const slow = (waits: ReadonlyArray<number>) => `${waits.filter((ms) => ms > 10_000).length} over 10 s, max ${Math.max(0, ...waits)} ms`
        const stuckKeys = [...stats.conflicts.entries()].filter(([, s]) => s.last - s.first > leaseMs + 3_000).length
        const errorLines = processes.flatMap((p) => p.instances.flatMap((x) => x.output().split("\n").filter((l) => /"level":"(ERROR|FATAL)"/.test(l))))
        console.log(
          `cluster (2 API + 2 workers, started together in ${startedAll} ms, migrated by ${migratedBy.join(",")}, ${sandboxPartners} sandbox partner(s) bootstrapped): ` +
            `${orders.length} orders, ${confirmedOrders.length} confirms, ${expectedSettlements.length} settlements, ${expectedRefunds.length} refunds ` +
            `(each answered 201 with its refund); ${stats.requests} requests in ${requestsMs} ms (load ${loadMs} ms); ` +
            `kills ${kills.map((k) => `${k.name} (back in ${k.back - k.at} ms)`).join(", ")}; retries ${stats.retries} ` +
            `(${stats.connectionFailures} no answer, ${stats.inFlightConflicts} in-flight 409 on ${stats.conflicts.size} keys, ${stats.rateLimited} 429); ` +
            `stuck keys ${stuckKeys}; duplicates: payments ${duplicatePayments}, transfers ${transferDuplicates}, payouts ${payoutDuplicates}, refunds ${refundDuplicates}; ` +
            `missing: payments ${lostPayments}, transfers ${transferMissing}, payouts ${payoutMissing}, webhooks ${undelivered}; ` +
            `executor txs ${executorTxs.length} (${reverted} reverted, ${executorRepeats} authorizations sent twice); ` +
            `webhooks ${events.length} events, ${received.length} deliveries, ${deliveredTwice} delivered twice, ${unverified} unverified; ` +
            `confirm → succeeded ${slow(chainWaits)}; payout → completed ${slow(payoutWaits)}; ` +
            `500s ${stats.status500}; converged ${convergeMs} ms after the load; error log lines ${errorLines.length}; total ${Date.now() - startedAt} ms`
        )
        if (errorLines.length > 0) console.log(`error log lines (first 5):\n${errorLines.slice(0, 5).join("\n")}`)

        // What a payment left processing went through, from every process's whole output.
        const stuck = last.processing === 0 ? "" : (await sql<Array<{ id: string; commitment: unknown; chain_due_at: string | null; chain_lease_until: string | null }>>`
          SELECT id, commitment, chain_due_at::text, chain_lease_until::text FROM payments WHERE status = 'processing'`)
          .map((p) => [
            `${p.id}: due ${p.chain_due_at}, leased until ${p.chain_lease_until} (now ${Date.now()}), commitment ${JSON.stringify(p.commitment)}`,
            ...processes.flatMap((x) => x.instances.flatMap((i, n) => i.output().split("\n").filter((l) => l.includes(p.id)).map((l) => `${x.name} #${n + 1}: ${l}`)))
          ].join("\n")).join("\n")
        expect(last, `did not converge\n${stuck}\n${outputs()}`).toMatchObject({ processing: 0, undecided: 0, pending_payouts: 0, unprocessed: 0, pending_deliveries: 0 })
        expect(kills.length).toBe(2)
        // The kill cut requests in flight (or refused them): the client had to retry.
        expect(stats.connectionFailures).toBeGreaterThan(0)
        expect(stats.status500, stats.unexpected.join("\n")).toBe(0)
        expect(stuckKeys).toBe(0)
        expect({ duplicatePayments, lostPayments, wrongId }).toEqual({ duplicatePayments: 0, lostPayments: 0, wrongId: 0 })
        expect(payments.length).toBe(orders.length)
        for (const o of orders) expect(paymentById.get(o.paymentId!)?.status, `order ${o.i}`).toBe(o.pay ? "succeeded" : "requires_action")
        expect({ transferDuplicates, transferMissing }).toEqual({ transferDuplicates: 0, transferMissing: 0 })
        expect(inbound.length).toBe(confirmedOrders.length)
        expect(usedAuthorizations.length).toBe(confirmedOrders.length)
        expect({ payoutDuplicates, payoutMissing, refundDuplicates }).toEqual({ payoutDuplicates: 0, payoutMissing: 0, refundDuplicates: 0 })
        expect(outbound.length).toBe(expectedSettlements.length + expectedRefunds.length)
        expect(payouts.filter((x) => x.status !== "completed")).toEqual([])
        expect(payouts.length).toBe(expectedSettlements.length + expectedRefunds.length)
        expect(refundRows.length).toBe(expectedRefunds.length)
        expect(settledEvents).toBe(expectedSettlements.length)
        expect(undelivered).toBe(0)
        expect(unverified).toBe(0)
        // created each; processing and succeeded each paid; settled each settlement; refunded each refund.
        expect(events.length).toBe(orders.length + 2 * confirmedOrders.length + expectedSettlements.length + expectedRefunds.length)
        expect(stats.unexpected).toEqual([])

        // ---- The ledger after the faults: it equals the chain at every collection and deposit address, and balances.
        const audit = await auditLedger(Database.layerUrl(w.url, { maxConnections: 2 }), JSON.parse(chains))
        expect(audit).toEqual({ compared: audit.compared, differing: [], unbalanced: [] })
        expect(audit.compared).toBeGreaterThan(0)
      } finally {
        await sql.end()
      }
    }, 300_000)
  }
)
