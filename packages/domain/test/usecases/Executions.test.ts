import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId } from "../../src/ids/Ids.ts"
import { Commitment, Payment, SignedAuthorization } from "../../src/payment/Payment.ts"
import type { ChainOutcome } from "../../src/ports/ChainGateway.ts"
import { ChainUnavailable } from "../../src/ports/ChainUnavailable.ts"
import { SubmissionRefused } from "../../src/ports/SubmissionRefused.ts"
import { layerMemory, makeMemoryStore, type MemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, scriptedChain, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { ExecutionPolicy, Executions } from "../../src/usecases/Executions.ts"
import { Payments } from "../../src/usecases/Payments.ts"

const partnerId = "ptn_exec" as PartnerId
const merchantId = "mer_exec" as MerchantId
const start = 1_800_000_000_000
const account = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const nonce = `0x${"11".repeat(32)}`
const submittedHash = `0x${"11".repeat(32)}`

interface Script {
  submits: number
  /** `refused`: the adapter would not send it (e.g. its simulation reverts: the payer is short). */
  submit: "ok" | "down" | "refused"
  outcome: ChainOutcome
  /** Outcomes of particular transactions (others: `outcome`). */
  outcomes?: Map<string, ChainOutcome>
  /** What `usedBy` answers: the transaction that used the authorization, none, or the chain is down. */
  usedBy?: string | "none" | "down"
  /** The hash of submissions after the first (a new transaction); default: the first's. */
  resubmitted?: string
}

const provide = <A, E>(script: Script, body: (store: MemoryStore) => Effect.Effect<A, E, Payments | Executions>) => {
  const store = makeMemoryStore()
  const chain = scriptedChain({
    submit: (proof) =>
      Effect.suspend((): Effect.Effect<string, ChainUnavailable | SubmissionRefused> => {
        script.submits++
        if (script.submit === "refused") return Effect.fail(new SubmissionRefused({ chainId: "eip155:1", message: "it would revert" }))
        return script.submit === "down"
          ? Effect.fail(new ChainUnavailable({ chainId: "eip155:1", message: "connection refused" }))
          : Effect.succeed(script.submits > 1 && script.resubmitted !== undefined ? script.resubmitted : `0x${proof.nonce.slice(2)}`)
      }),
    outcome: (txHash) => script.outcomes?.get(txHash) ?? script.outcome,
    usedBy: () =>
      Effect.suspend(() =>
        script.usedBy === "down"
          ? Effect.fail(new ChainUnavailable({ chainId: "eip155:1", message: "connection refused" }))
          : Effect.succeed(script.usedBy === undefined || script.usedBy === "none" ? Option.none() : Option.some(script.usedBy))
      )
  })
  return Effect.provide(
    Effect.andThen(TestClock.setTime(start), body(store)),
    Executions.layer.pipe(
      Layer.provideMerge(Payments.layer),
      Layer.provide(IdGenerator.layer),
      Layer.provide([layerMemory(store), chain, oneMerchant(partnerId, merchantId), seededSecureRandom(3)])
    )
  )
}

// A confirmed pull payment (as the confirm use case leaves it): processing, authorization, no transaction yet.
const confirmedPull = (store: MemoryStore, validBefore = start / 1000 + 900) =>
  Effect.gen(function*() {
    const created = yield* Payments.use((p) =>
      p.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "o-1" }))
    const commitment = new Commitment({
      kind: "pull",
      account,
      asset,
      tokenAmount: 12_500_000n,
      fingerprint: "fp",
      txHash: null,
      authorization: new SignedAuthorization({ to: "0x000000000000000000000000000000000000c011", validBefore, nonce, signature: "0x01" }),
      reference: null,
      walletName: "Test wallet",
      confirmedAt: start / 1000
    })
    store.payments.set(created.id, new Payment({ ...created, status: "processing", commitment, stateVersion: created.stateVersion + 1 }))
    return created.id
  })

const advance = (id: PaymentId) => Executions.use((e) => e.advance(id))
const eventTypes = (store: MemoryStore, id: PaymentId) => store.events.filter((e) => e.paymentId === id).map((e) => e.type)

describe("Executions.advance", () => {
  it.effect("submits the authorization once, records the hash, and settles on the chain's outcome", () => {
    const script: Script = { submits: 0, submit: "ok", outcome: "pending" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, submittedHash)
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        // Later rounds watch the recorded transaction; they never submit again.
        assert.strictEqual(yield* advance(id), "pending")
        script.outcome = "succeeded"
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(script.submits, 1)
        assert.strictEqual(store.payments.get(id)!.status, "succeeded")
        assert.deepStrictEqual(eventTypes(store, id), ["payment.created", "payment.succeeded"])
        assert.strictEqual(yield* advance(id), "final")
      }))
  })

  it.effect("an unreachable chain keeps the payment processing (unknown), never failed", () => {
    const script: Script = { submits: 0, submit: "down", outcome: "unknown" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        assert.strictEqual(yield* advance(id), "unknown")
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        assert.isNull(store.payments.get(id)!.commitment!.txHash)
        script.submit = "ok"
        assert.strictEqual(yield* advance(id), "unknown", "submitted, but the outcome cannot be read")
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        script.outcome = "failed"
        yield* TestClock.adjust("901 seconds")
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "failed")
      }))
  })

  it.effect("a recorded transaction that reverted while another used the authorization: the payment follows the one that paid", () => {
    // Two workers sent the authorization before either was mined; the recorded one reverted.
    const paidHash = `0x${"22".repeat(32)}`
    const script: Script = { submits: 0, submit: "ok", outcome: "pending", outcomes: new Map([[submittedHash, "failed"]]), usedBy: "down" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        // Submitted and observed in the same round: reverted, and the chain cannot say who used the authorization.
        assert.strictEqual(yield* advance(id), "unknown", "the reverted transaction is not final until the authorization's use is known")
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, submittedHash)
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        script.usedBy = paidHash
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, paidHash)
        script.outcomes!.set(paidHash, "succeeded")
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "succeeded")
        assert.deepStrictEqual(eventTypes(store, id), ["payment.created", "payment.succeeded"])
        assert.strictEqual(script.submits, 1)
      }))
  })

  it.effect("a reverted transaction leaves the payment processing while its authorization is valid; it fails once the chain is past validBefore unused", () => {
    // E.g. the buyer's balance was short when it was mined: the signed authorization could still pay later.
    const script: Script = { submits: 0, submit: "ok", outcome: "failed", usedBy: "none" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const first = yield* confirmedPull(store, start / 1000 + 60)
        assert.strictEqual(yield* advance(first), "pending", "sent again, not failed")
        assert.strictEqual(store.payments.get(first)!.status, "processing")
        assert.strictEqual(script.submits, 2)
        script.submit = "refused"
        assert.strictEqual(yield* advance(first), "unknown", "not sendable now: checked again later")
        assert.strictEqual(store.payments.get(first)!.status, "processing")
        yield* TestClock.adjust("60 seconds")
        assert.strictEqual(yield* advance(first), "final")
        assert.strictEqual(store.payments.get(first)!.status, "failed")
        // The chain says the reverted transaction itself used it (it cannot have paid): failed too.
        script.usedBy = submittedHash
        script.submit = "ok"
        store.payments.delete(first)
        const second = yield* confirmedPull(store)
        assert.strictEqual(yield* advance(second), "final")
        assert.strictEqual(store.payments.get(second)!.status, "failed")
      }))
  })

  it.effect("an authorization the adapter refuses to send (the buyer is short) keeps the payment processing; a transaction anyone sent with it pays it", () => {
    const thirdParty = `0x${"44".repeat(32)}`
    const script: Script = { submits: 0, submit: "refused", outcome: "pending", outcomes: new Map([[thirdParty, "succeeded"]]), usedBy: "none" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        assert.strictEqual(yield* advance(id), "unknown")
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        assert.isNull(store.payments.get(id)!.commitment!.txHash)
        script.usedBy = thirdParty
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "succeeded")
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, thirdParty)
        assert.deepStrictEqual(eventTypes(store, id), ["payment.created", "payment.succeeded"])
      }))
  })

  it.effect("a transaction the chain dropped is replaced: the authorization is sent again after the grace period", () => {
    // E.g. another worker's transaction took its nonce: the node no longer has it, it will never be mined.
    const replacement = `0x${"33".repeat(32)}`
    const script: Script = { submits: 0, submit: "ok", outcome: "pending", outcomes: new Map([[submittedHash, "dropped"]]), resubmitted: replacement }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        // A fresh broadcast may not have reached the node yet: waited for.
        assert.strictEqual(yield* advance(id), "pending")
        const { droppedResendAfterMs } = yield* ExecutionPolicy
        yield* TestClock.adjust(droppedResendAfterMs - 1)
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(script.submits, 1)
        yield* TestClock.adjust(1)
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(script.submits, 2)
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, replacement)
        script.outcomes!.set(replacement, "succeeded")
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "succeeded")
        assert.deepStrictEqual(eventTypes(store, id), ["payment.created", "payment.succeeded"])
      }))
  })

  it.effect("a transaction seen dropped but mined meanwhile (the node answered late): followed again, never failed, never sent twice", () => {
    const script: Script = { submits: 0, submit: "ok", outcome: "pending", outcomes: new Map([[submittedHash, "dropped"]]), usedBy: submittedHash }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        assert.strictEqual(yield* advance(id), "pending")
        yield* TestClock.adjust((yield* ExecutionPolicy).droppedResendAfterMs)
        // The node still says dropped, but the authorization shows it used by this very transaction.
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(store.payments.get(id)!.status, "processing")
        assert.strictEqual(store.payments.get(id)!.commitment!.txHash, submittedHash)
        assert.strictEqual(script.submits, 1)
        script.outcomes!.set(submittedHash, "succeeded")
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "succeeded")
        assert.strictEqual(script.submits, 1)
      }))
  })

  it.effect("a dropped transaction whose authorization expired: the payment follows a transaction that used it, else fails", () => {
    const paidHash = `0x${"22".repeat(32)}`
    const script: Script = { submits: 0, submit: "ok", outcome: "dropped", usedBy: paidHash }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const first = yield* confirmedPull(store, start / 1000 + 60)
        assert.strictEqual(yield* advance(first), "pending")
        yield* TestClock.adjust("61 seconds")
        // Too late to send again; another transaction used the authorization in time.
        assert.strictEqual(yield* advance(first), "pending")
        assert.strictEqual(store.payments.get(first)!.commitment!.txHash, paidHash)
        assert.strictEqual(script.submits, 1)
        script.usedBy = "none"
        store.payments.delete(first)
        const second = yield* confirmedPull(store, start / 1000 + 120)
        assert.strictEqual(yield* advance(second), "pending")
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* advance(second), "final")
        assert.strictEqual(store.payments.get(second)!.status, "failed")
        assert.strictEqual(script.submits, 2)
      }))
  })

  it.effect("a push payment's dropped transaction is the payer's: waited for, never sent by the executor", () => {
    const script: Script = { submits: 0, submit: "ok", outcome: "dropped" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store)
        const pull = store.payments.get(id)!
        const push = new Payment({ ...pull, commitment: new Commitment({ ...pull.commitment!, kind: "push", authorization: null, txHash: submittedHash }) })
        store.payments.set(id, push)
        yield* TestClock.adjust((yield* ExecutionPolicy).droppedResendAfterMs * 10)
        assert.strictEqual(yield* advance(id), "pending")
        assert.strictEqual(script.submits, 0)
        assert.strictEqual(store.payments.get(id)!.status, "processing")
      }))
  })

  it.effect("an authorization whose validBefore passed before it could be submitted fails the payment", () => {
    const script: Script = { submits: 0, submit: "down", outcome: "unknown" }
    return provide(script, (store) =>
      Effect.gen(function*() {
        const id = yield* confirmedPull(store, start / 1000 + 60)
        assert.strictEqual(yield* advance(id), "unknown")
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* advance(id), "final")
        assert.strictEqual(store.payments.get(id)!.status, "failed")
        assert.strictEqual(script.submits, 1)
      }))
  })
})
