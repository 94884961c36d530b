/**
 * A payout or refund is sent once whatever kills the worker between signing and completing it:
 * a worker process (`test/support/CrashingWorker.ts`: the real worker whose `Payouts` port kills it
 * with SIGKILL at one step) dies right after signing, right after recording the signed transfer,
 * right after broadcasting it, or right after the chain said it paid; then a normal worker
 * (`npm run worker`'s) starts on the same database and chain. Per refund and per settlement, at each
 * step: exactly one transfer on chain to the recipient for the payout's value (the one recorded),
 * the payout completed, one ledger posting, the refund completed or one `payment.settled`, and a
 * later payout from the same collection key goes through (its nonce sequence has no gap). The same
 * for a pull payment's authorization, and for a held payment's capture from the escrow: made once.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { type PaymentId, type Payout, PayoutRepository } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type Address, createWalletClient, type Hash, http, parseAbiItem } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { confirmWithWallet } from "../support/PullShop.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import type { WorkerProcess } from "../support/PostgresWorld.ts"
import { spawnNode, spawnWorker, waitForLine } from "../support/ServiceProcess.ts"
import { databaseAt } from "../support/PostgresAdmin.ts"
import { postgres, useTestServer } from "../support/TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")
const steps = ["signed", "recorded", "broadcast", "observed"] as const
type Step = (typeof steps)[number]
type Kind = "refund" | "settlement"

describe.runIf(serverUrl !== undefined && serverUrl !== "")("A payout is sent once whatever kills the worker between sign and send (kill -9)", () => {
  const world = localChainForFile()
  const databaseName = `paygate_crash_${randomBytes(6).toString("hex")}`
  const server = useTestServer(postgres(serverUrl!, databaseName), () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(Chain.ChainConfig.layer(world().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))

  const workerEnv = () => ({
    DATABASE_URL: databaseAt(serverUrl!, databaseName),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    PAYGATE_CHAINS: JSON.stringify(Chain.LocalChain.settingsFor(world().chain, 1)),
    // A killed worker's payouts are taken over once their lease ends.
    PAYOUT_LEASE_MS: "2000",
    PAYOUT_POLL_MS: "50",
    PAYOUT_PENDING_RECHECK_MS: "100",
    PAYOUT_UNKNOWN_RECHECK_MS: "300",
    PAYOUT_RETRY_MS: "200",
    EXECUTOR_LEASE_MS: "2000",
    WATCHER_LEASE_MS: "2000",
    HOLD_LEASE_MS: "2000",
    HOLD_POLL_MS: "50",
    HOLD_PENDING_RECHECK_MS: "100"
  })
  const caip10 = (address: string) => `${world().chain.chainId}:${address}`
  const freshAccount = () => privateKeyToAccount(generatePrivateKey()).address
  const api = async (method: string, path: string, body?: unknown) => {
    const partner = await partnerKey()
    return server.request(method, path, { apiKey: partner, ...(body === undefined ? {} : { body }) })
  }
  let sandboxKey: string | undefined
  const partnerKey = async () => (sandboxKey ??= (await server.partner()).sandbox)

  /** A succeeded payment of `merchantId` paid with `tokenAmount` TUSDC by `payer` (written directly). */
  const paid = async (merchantId: string, payer: Address, tokenAmount: bigint) => {
    const paymentId = (await server.payment(await partnerKey(), merchantId)).paymentId as string
    await server.succeed(paymentId, { account: caip10(payer), asset: world().chain.usdcAssetId, tokenAmount })
    return paymentId
  }

  const payoutOf = async (paymentId: string, kind: Kind) =>
    server.run(PayoutRepository.use((repo) => repo.find({ paymentId: paymentId as PaymentId, kind })))

  /** The Transfer logs from the collection address to `to`. */
  const transfersTo = async (to: Address) =>
    world().client.getLogs({
      address: world().chain.contracts.usdc,
      event: transferEvent,
      args: { from: world().chain.collectionAddress, to },
      fromBlock: 0n,
      toBlock: "latest"
    })

  const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
    server.run(Effect.gen(function*() {
      return yield* query(yield* SqlClient.SqlClient)
    }).pipe(Effect.orDie))

  /** A refund (to `payer`) or a settlement (to a new merchant's destination) about to be paid; answers where it goes. */
  const payoutToMake = async (kind: Kind, value: bigint) => {
    const merchantId = await server.merchant(await partnerKey())
    if (kind === "refund") {
      const payer = freshAccount()
      const paymentId = await paid(merchantId, payer, value)
      expect((await api("POST", "/v1/refunds", { paymentId })).status).toBe(201)
      return { paymentId, recipient: payer }
    }
    const destination = freshAccount()
    const registered = await api("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(destination) }]
    })
    expect(registered.status).toBe(201)
    return { paymentId: await paid(merchantId, freshAccount(), value), recipient: destination }
  }

  /** Where the killed worker left the payout: exactly at its step. */
  const expectStoppedAt = async (step: Step, payout: Payout, recipient: Address) => {
    expect(payout.status).toBe("pending")
    const onChain = await transfersTo(recipient)
    if (step === "signed") {
      expect(payout.transfer).toBeNull()
      expect(onChain).toHaveLength(0)
      return
    }
    const txHash = payout.transfer!.txHash as Hash
    if (step === "recorded") {
      expect(onChain).toHaveLength(0)
      await expect(world().client.getTransaction({ hash: txHash })).rejects.toThrow()
    } else {
      expect(onChain.map((log) => log.transactionHash)).toEqual([txHash])
    }
  }

  const stop = async (p: WorkerProcess) => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM")
    await p.exited
  }

  /** Runs the crashing worker until it kills itself at `step`. */
  const crashAt = async (step: Step | "submitted" | "captured") => {
    const crashing = spawnNode(["test/support/CrashingWorker.ts"], { ...workerEnv(), CRASH_AT: step })
    const died = await Promise.race([crashing.exited, new Promise((resolve) => setTimeout(() => resolve("alive"), 60_000))])
    if (died !== "SIGKILL") await stop(crashing)
    expect(died, crashing.output().slice(-4_000)).toBe("SIGKILL")
    expect(crashing.output()).toContain(`crashing at ${step}`)
  }

  /** Runs `body` while a normal worker (`npm run worker`'s) runs on the same database and chain. */
  const withWorker = async (body: (worker: WorkerProcess) => Promise<void>) => {
    const worker = spawnWorker(workerEnv())
    try {
      await waitForLine(worker, "worker started: dispatcher", 60_000, "worker")
      await body(worker)
    } finally {
      await stop(worker)
    }
  }

  /** No transaction of `address` waits in the pool: none holds a nonce the chain cannot reach. */
  const expectNoGap = async (address: Address) =>
    expect(await world().client.getTransactionCount({ address, blockTag: "pending" }))
      .toBe(await world().client.getTransactionCount({ address, blockTag: "latest" }))

  /** Another transaction of the collection key (an operator's, another process's) takes the next nonce. */
  const takeCollectionNonce = async () => {
    const key = Chain.anvilAccount(9)
    const wallet = createWalletClient({ account: privateKeyToAccount(key.privateKey), transport: http(world().chain.node.rpcUrl) })
    const hash = await wallet.sendTransaction({ chain: null, to: key.address, value: 0n })
    await world().client.waitForTransactionReceipt({ hash })
  }

  const scenario = (kind: Kind, step: Step, value: bigint, meanwhile?: { readonly title: string; readonly run: () => Promise<void> }) =>
    it(`a ${kind} whose worker is killed right after it was ${step}${meanwhile?.title ?? ""} is paid exactly once`, async () => {
      const { paymentId, recipient } = await payoutToMake(kind, value)
      await crashAt(step)
      const left = Option.getOrThrow(await payoutOf(paymentId, kind))
      await expectStoppedAt(step, left, recipient)
      await meanwhile?.run()

      // A later payout, due before the crashed one's lease ends: it takes the next nonce the chain
      // knows, which a recorded transfer never broadcast may hold too.
      const later = await payoutToMake("refund", 1_000n)
      await withWorker(async (worker) => {
        const done = await eventually(
          async () => Option.getOrThrow(await payoutOf(paymentId, kind)),
          (p) => p.status !== "pending",
          30_000
        )
        expect(done.status, worker.output().slice(-4_000)).toBe("completed")
        // On chain already: followed, never replaced; its nonce taken by another: replaced.
        if (step === "broadcast" || step === "observed") expect(done.transfer).toEqual(left.transfer)
        if (meanwhile !== undefined) expect(done.transfer!.txHash).not.toBe(left.transfer!.txHash)

        // The later payout goes through too: no gap in the collection key's nonces.
        await eventually(async () => Option.getOrThrow(await payoutOf(later.paymentId, "refund")), (p) => p.status === "completed", 30_000)
        // The worker processes keep the collection key's nonce sequence in the database, one for all.
        const sequence = await rows((sql) =>
          sql<{ readonly next: string | null }>`SELECT next_nonce::text AS next FROM signer_nonces
            WHERE lower(address) = lower(${Chain.anvilAccount(9).address})`
        )
        expect(sequence.map((row) => Number(row.next) > 0)).toEqual([true])
        // Time for a second transfer of the crashed payout to show up, were one sent.
        await new Promise((resolve) => setTimeout(resolve, 1_000))

        const onChain = await transfersTo(recipient)
        expect(onChain.map((log) => [log.transactionHash, log.args.value])).toEqual([[done.transfer!.txHash, value]])
        expect(await world().balanceOf(recipient)).toBe(value)
        const postings = await rows((sql) =>
          sql<{ readonly id: string }>`SELECT id::text AS id FROM ledger_transactions
            WHERE source = 'payout' AND source_id = ${`${paymentId}:${kind}:0`}`
        )
        expect(postings).toHaveLength(1)
        if (kind === "refund") {
          const record = (await api("GET", `/v1/payments/${paymentId}`)).body
          expect(record.refund).toMatchObject({ status: "completed", txHash: done.transfer!.txHash })
        } else {
          const settled = await rows((sql) =>
            sql<{ readonly id: string }>`SELECT id FROM outbox_events WHERE payment_id = ${paymentId} AND type = 'payment.settled'`
          )
          expect(settled).toHaveLength(1)
        }
        await expectNoGap(world().chain.collectionAddress)
      })
    }, 180_000)

  steps.forEach((step, i) => {
    scenario("refund", step, 1_100_000n + BigInt(i))
    scenario("settlement", step, 2_200_000n + BigInt(i))
  })
  scenario("refund", "recorded", 3_300_000n, {
    title: " and another transaction of its key took the recorded nonce",
    run: takeCollectionNonce
  })

  it("a pull payment whose worker is killed right after the executor broadcast its authorization is collected once", async () => {
    const buyer = Chain.anvilAccount(5)
    const collection = world().chain.collectionAddress
    const walletKey = await server.walletKey("sandbox")
    const created = await api("POST", "/v1/payments", {
      merchantId: await server.merchant(await partnerKey()),
      amount: { unit: "iso4217/USD", value: "1250" },
      referenceId: `crash-${randomBytes(4).toString("hex")}`
    })
    expect(created.status).toBe(201)
    const paymentId = created.body.paymentId as string
    await confirmWithWallet(server, walletKey, world(), paymentId, buyer)
    const pulls = () =>
      world().client.getLogs({
        address: world().chain.contracts.usdc,
        event: transferEvent,
        args: { from: buyer.address, to: collection },
        fromBlock: 0n,
        toBlock: "latest"
      })
    const before = await pulls()

    await crashAt("submitted")
    // Sent, its hash not recorded.
    const left = (await api("GET", `/v1/payments/${paymentId}`)).body
    expect(left.status).toBe("processing")
    expect(left.transaction?.hash ?? null).toBeNull()
    const sent = (await pulls()).slice(before.length)
    expect(sent).toHaveLength(1)

    await withWorker(async (worker) => {
      const done = await eventually(async () => (await api("GET", `/v1/payments/${paymentId}`)).body, (p) => p.status !== "processing", 30_000)
      expect(done.status, worker.output().slice(-4_000)).toBe("succeeded")
      expect(done.transaction.hash).toBe(sent[0]!.transactionHash)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect((await pulls()).slice(before.length).map((log) => log.transactionHash)).toEqual([sent[0]!.transactionHash])
      await expectNoGap(Chain.anvilAccount(0).address)
    })
  }, 180_000)

  it("a held payment whose worker is killed right after it sent a capture is captured once", async () => {
    const buyer = Chain.anvilAccount(4)
    const destination = freshAccount()
    const walletKey = await server.walletKey("sandbox")
    const merchantId = await server.merchant(await partnerKey())
    const registered = await api("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(destination) }]
    })
    expect(registered.status).toBe(201)
    const created = await api("POST", "/v1/payments", {
      merchantId,
      amount: { unit: "iso4217/USD", value: "1250" },
      referenceId: `held-crash-${randomBytes(4).toString("hex")}`,
      capture: "manual"
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const paymentId = created.body.paymentId as string
    await confirmWithWallet(server, walletKey, world(), paymentId, buyer)
    await withWorker(async (worker) => {
      const held = await eventually(async () => (await api("GET", `/v1/payments/${paymentId}`)).body, (p) => p.status !== "processing", 30_000)
      expect(held.status, worker.output().slice(-4_000)).toBe("authorized")
    })
    expect((await api("POST", `/v1/payments/${paymentId}/capture`, {})).status).toBe(200)

    await crashAt("captured")
    // Sent, its hash not recorded.
    const left = (await api("GET", `/v1/payments/${paymentId}`)).body
    expect(left.hold.operations).toMatchObject([{ kind: "capture", status: "pending", txHash: null }])
    const captures = () =>
      world().client.getLogs({ address: world().chain.contracts.usdc, event: transferEvent, args: { to: destination }, fromBlock: 0n, toBlock: "latest" })
    await eventually(captures, (logs) => logs.length === 1, 30_000)

    await withWorker(async (worker) => {
      const done = await eventually(async () => (await api("GET", `/v1/payments/${paymentId}`)).body, (p) => p.status !== "authorized", 30_000)
      expect(done.status, worker.output().slice(-4_000)).toBe("succeeded")
      expect(done.hold).toMatchObject({ captured: "12500000", released: null })
      // Time for a second capture to show up, were one sent.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const logs = await captures()
      expect(logs.map((log) => log.args.value)).toEqual([12_500_000n])
      expect(await world().balanceOf(destination)).toBe(12_500_000n)
      await expectNoGap(Chain.anvilAccount(0).address)
    })
  }, 180_000)
})
