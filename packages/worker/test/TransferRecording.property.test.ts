/**
 * The chain watcher's recording of transfer logs, as a property over random blocks (on PGlite,
 * with the real reconciliation and stores; the blocks are data): batched transactions paying
 * several payments, logs read twice (a rescan) or again from another block (a reorganisation
 * within the confirmations re-read), transfers a buyer submitted through a wrapper with their
 * committed authorization, late ones, wrong tokens, strays, and logs the store fails on. Whatever
 * comes, recording never fails (a log it cannot record is quarantined), every log is recorded or
 * quarantined, and no unit is credited twice.
 */
import { SqlPersistence, SqlQuoteStore } from "@paygate/adapters"
import {
  Commitment,
  IdGenerator,
  NetworkModes,
  type ObservedTransfer,
  Payment,
  type PaymentId,
  PaymentRepository,
  QuoteStore,
  Reconciliation,
  SignedAuthorization
} from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { makeTestServer, pglite, type TestPartner, type TestServer } from "../../../test/support/TestServer.ts"
import { recordTransfers } from "../src/index.ts"

const chainId = "eip155:31337"
const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
const asset = `${chainId}/erc20:${token}`
const wrongAsset = `${chainId}/erc20:0x${"77".repeat(20)}`
const buyer = `${chainId}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`
const asked = 1_000n

// The local chain is a test network, as a worker configured with it knows (the ledger posts per mode).
const modes = Layer.succeed(NetworkModes, { modeOf: (id: string) => (id === chainId ? "sandbox" as const : undefined) })

const reconciliationLayer = Reconciliation.layer.pipe(
  Layer.provide(Layer.mergeAll(SqlPersistence.layer, SqlQuoteStore.layer, IdGenerator.layer)),
  Layer.provide(Layer.merge(SecureRandom.layerWebCrypto, modes))
)

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`

/** How a payment of a scenario is paid: a push reference, its deposit address, or its committed authorization. */
type Kind = "push" | "deposit" | "pull"

/** One transfer of a scenario, before it is placed in a block. */
interface Step {
  /** Which payment it is meant for (modulo the scenario's payments), or a stray. */
  readonly target: number | "stray"
  readonly value: "exact" | "part" | "more"
  readonly wrongToken: boolean
  readonly late: boolean
  /** Shares the transaction of the step before (a batch). */
  readonly batched: boolean
  /** Read again in a later block: the same log (a rescan), or the same transaction and log in another block. */
  readonly again: "no" | "same" | "otherBlock"
  /** The store fails on it (it must be quarantined, and the rest recorded). */
  readonly fails: boolean
  /** A stray carries a reference nobody handed out (else none). */
  readonly strayReference: boolean
}

/** True about once in `n`. */
const oneIn = (n: number) => fc.integer({ min: 1, max: n }).map((k) => k === 1)

const step: fc.Arbitrary<Step> = fc.record({
  target: fc.oneof(fc.nat({ max: 5 }), fc.constant("stray" as const)),
  value: fc.constantFrom("exact" as const, "part" as const, "more" as const),
  wrongToken: oneIn(5),
  late: oneIn(4),
  batched: fc.boolean(),
  again: fc.constantFrom("no" as const, "no" as const, "same" as const, "otherBlock" as const),
  fails: oneIn(7),
  strayReference: fc.boolean()
})

const scenario = fc.record({
  kinds: fc.array(fc.constantFrom<Kind>("push", "deposit", "pull"), { minLength: 1, maxLength: 3 }),
  steps: fc.array(step, { minLength: 1, maxLength: 12 }),
  blockSize: fc.integer({ min: 1, max: 4 })
})

let server: TestServer
let partner: TestPartner
let merchantId: string

beforeAll(async () => {
  server = await makeTestServer(pglite)
  partner = await server.partner()
  merchantId = await server.merchant(partner.sandbox)
}, 120_000)
afterAll(async () => {
  await server?.close()
})

/** A payment paid by `kind`, with its quote (and, for `pull`, its committed authorization). */
const preparePayment = async (kind: Kind) => {
  const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as PaymentId
  const depositAccount = `${chainId}:0x${randomBytes(20).toString("hex")}`
  const nonce = kind === "pull" ? hex(32) : hex(16)
  const now = Math.floor(Date.now() / 1000)
  const claims = { paymentId, account: kind === "deposit" ? depositAccount : buyer, asset, value: asked.toString(), expiresAt: null, kind, nonce, quotedAt: now - 60 }
  const payment = await server.run(Effect.gen(function*() {
    yield* (yield* QuoteStore).save({ optionId: `opt_${randomBytes(8).toString("hex")}`, claims })
    const repo = yield* PaymentRepository
    const stored = (yield* repo.findById(paymentId)).pipe((found) => (found._tag === "Some" ? found.value : undefined))!
    if (kind !== "pull") return stored
    // Confirmed with the buyer's authorization; not yet submitted by the executor.
    const committed = new Payment({
      ...stored,
      status: "processing",
      stateVersion: stored.stateVersion + 1,
      commitment: new Commitment({
        kind: "pull",
        account: buyer,
        asset,
        tokenAmount: asked,
        fingerprint: `fp-${nonce}`,
        txHash: null,
        authorization: new SignedAuthorization({ to: `0x${"99".repeat(20)}`, validBefore: now + 600, nonce, signature: hex(65) }),
        reference: null,
        walletName: "Wallet",
        confirmedAt: now
      })
    })
    expect(yield* Effect.orDie(repo.update(committed, []))).toBe(true)
    return committed
  }).pipe(Effect.provide(SqlQuoteStore.layer)))
  return { payment, kind, nonce, depositAccount }
}

type Prepared = Awaited<ReturnType<typeof preparePayment>>

/** The transfers of a scenario in blocks, and which of their logs the store fails on. */
const blocksOf = (payments: ReadonlyArray<Prepared>, steps: ReadonlyArray<Step>, blockSize: number) => {
  const transfers: Array<ObservedTransfer> = []
  const failing = new Set<string>()
  let txHash = hex(32)
  let logIndex = 0
  let block = 1_000
  // The token lets an authorization be used once: a second transfer for a pull payment carries no nonce.
  const usedNonces = new Set<string>()
  for (const s of steps) {
    if (!s.batched) {
      txHash = hex(32)
      logIndex = 0
    }
    const target = s.target === "stray" ? undefined : payments[s.target % payments.length]!
    const value = s.value === "exact" ? asked : s.value === "part" ? asked / 4n : asked + 7n
    const blockTime = target !== undefined && s.late ? target.payment.expiresAt + 60 : Math.floor(Date.now() / 1000)
    const transfer: ObservedTransfer = {
      chainId,
      asset: s.wrongToken ? wrongAsset : asset,
      txHash,
      logIndex: logIndex++,
      blockNumber: block,
      blockHash: hex(32),
      blockTime,
      from: buyer,
      value,
      reference: target === undefined
        ? (s.strayReference ? hex(16) : null)
        : target.kind === "deposit" || (target.kind === "pull" && usedNonces.has(target.nonce))
        ? null
        : target.nonce,
      ...(target?.kind === "deposit" ? { deposit: { paymentId: target.payment.id, account: target.depositAccount } } : {})
    }
    transfers.push(transfer)
    if (target?.kind === "pull" && transfer.reference !== null) usedNonces.add(target.nonce)
    if (s.fails) failing.add(`${transfer.txHash}:${transfer.logIndex}`)
    if (s.again === "same") transfers.push(transfer)
    if (s.again === "otherBlock") transfers.push({ ...transfer, blockNumber: block + 1, blockHash: hex(32) })
    if (transfers.length % blockSize === 0) block++
  }
  return { transfers, failing }
}

it("random blocks of transfers never stop the recording and never credit a unit twice", async () => {
  const real = await server.run(Effect.gen(function*() {
    return yield* Reconciliation
  }).pipe(Effect.provide(reconciliationLayer)))
  await fc.assert(
    fc.asyncProperty(scenario, async ({ blockSize, kinds, steps }) => {
      const payments = await Promise.all(kinds.map(preparePayment))
      const { failing, transfers } = blocksOf(payments, steps, blockSize)
      // The store fails on these logs, every time they come.
      const flaky = Reconciliation.of({
        reconcile: (t) => failing.has(`${t.txHash}:${t.logIndex}`) ? Effect.die(new Error("the store failed")) : real.reconcile(t)
      })
      for (let i = 0; i < transfers.length; i += blockSize) {
        // Never fails, whatever the block holds.
        await server.run(recordTransfers(transfers.slice(i, i + blockSize)).pipe(
          Effect.provideService(Reconciliation, flaky),
          Effect.provide(SqlPersistence.layer),
          Effect.provide(modes)
        ))
      }
      const hashes = [...new Set(transfers.map((t) => t.txHash))]
      const { events, quarantined, receipts } = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const receipts = yield* sql<{ readonly tx_hash: string; readonly log_index: number; readonly outcome: string; readonly payment_id: string | null; readonly value: string; readonly expected_value: string | null }>`
          SELECT tx_hash, log_index, outcome, payment_id, value::text AS value, expected_value::text AS expected_value
          FROM chain_receipts WHERE ${sql.in("tx_hash", hashes)}`
        const quarantined = yield* sql<{ readonly tx_hash: string; readonly log_index: number }>`
          SELECT tx_hash, log_index FROM chain_quarantine WHERE ${sql.in("tx_hash", hashes)} AND resolved_at IS NULL`
        const events = yield* sql<{ readonly payment_id: string }>`SELECT payment_id FROM outbox_events
          WHERE type = 'payment.processing' AND ${sql.in("payment_id", payments.map((p) => p.payment.id))}`
        return { receipts, quarantined, events }
      }).pipe(Effect.orDie))
      // Every log once: recorded, or (the store failed on it) quarantined, never both, never twice.
      const logs = new Set(transfers.map((t) => `${t.txHash}:${t.logIndex}`))
      const recorded = receipts.map((r) => `${r.tx_hash}:${r.log_index}`)
      const held = quarantined.map((q) => `${q.tx_hash}:${q.log_index}`)
      expect(new Set(recorded).size).toBe(recorded.length)
      expect([...recorded, ...held].sort()).toEqual([...logs].sort())
      expect(held.sort()).toEqual([...failing].sort())
      for (const p of payments) {
        const own = receipts.filter((r) => r.payment_id === p.payment.id)
        // Credited at most the amount asked, by at most one transition to processing.
        const credited = own.reduce((sum, r) =>
          sum + (r.outcome === "paid" ? BigInt(r.value) : r.outcome === "overpaid" ? BigInt(r.expected_value!) : 0n), 0n)
        expect(credited <= asked).toBe(true)
        expect(events.filter((e) => e.payment_id === p.payment.id).length).toBeLessThanOrEqual(p.kind === "pull" ? 0 : 1)
        // The committed authorization's transfer, whoever submitted it, is the payment's own: never unmatched.
        if (p.kind === "pull") expect(own.every((r) => r.outcome === "paid" || r.outcome === "late")).toBe(true)
      }
      // A token nobody quoted, or a reference nobody handed out, is never credited.
      for (const r of receipts) {
        const t = transfers.find((x) => x.txHash === r.tx_hash && x.logIndex === r.log_index)!
        if (t.asset === wrongAsset || (t.reference !== null && !payments.some((p) => p.nonce === t.reference))) {
          expect(["paid", "overpaid", "underpaid"]).not.toContain(r.outcome)
        }
      }
    }),
    { numRuns: 40 }
  )
}, 600_000)
