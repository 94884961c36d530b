import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { errorCode, isDomainError } from "../../src/errors/DomainErrors.ts"
import type { DomainErrorCode } from "../../src/errors/ErrorCode.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId } from "../../src/ids/Ids.ts"
import type { Payment } from "../../src/payment/Payment.ts"
import type { PaymentStatus } from "../../src/payment/PaymentStatus.ts"
import { isFinal, merchantStatus, pollInMs } from "../../src/payment/StatusMachine.ts"
import { layerMemory, makeMemoryStore, type MemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, screeningList, scriptedChain, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import type { Access } from "../../src/usecases/Access.ts"
import { NetworkModes } from "../../src/ports/NetworkModes.ts"
import { PaymentCommitments } from "../../src/usecases/PaymentCommitments.ts"
import { layerTestDataCollection } from "../../src/testing/DataCollectionPorts.ts"
import { Payments } from "../../src/usecases/Payments.ts"

// A model-based test (fast-check `commands`) of the status machine through the use cases.

const start = 1_800_000_000_000
const partnerId = "ptn_model" as PartnerId
const merchantId = "mer_model" as MerchantId
const access: Access = { mode: "sandbox", partnerId }
const sanctioned = "eip155:1:0x000000000000000000000000000000000000dEaD"
const buyer = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const badSignature = "0xbad"

const allowed = new Set([
  "requires_action>processing",
  "requires_action>expired",
  "requires_action>cancelled",
  "processing>succeeded",
  "processing>failed"
])

interface ModelPayment {
  status: PaymentStatus
  expiresAt: number
  fingerprint: string | null
}
interface Model {
  now: number
  payments: Array<ModelPayment>
}
interface Real {
  runtime: ManagedRuntime.ManagedRuntime<Payments | PaymentCommitments | TestClock.TestClock, never>
  store: MemoryStore
  ids: Array<PaymentId>
  /** Stored status seen after the previous command, per payment. */
  seen: Map<PaymentId, PaymentStatus>
}

const effective = (p: ModelPayment, now: number): PaymentStatus =>
  p.status === "requires_action" && now >= p.expiresAt ? "expired" : p.status

type Outcome = { ok: Payment } | { code: DomainErrorCode }

// Every status and error reached across all runs: proves the sequences exercise the whole machine.
const reached = new Set<string>()
let commandsRun = 0

const run = async (model: Model, real: Real, op: (services: Payments["Service"] & PaymentCommitments["Service"]) => Effect.Effect<Payment, unknown>): Promise<Outcome> => {
  const exit = await real.runtime.runPromiseExit(
    Effect.gen(function*() {
      yield* TestClock.setTime(model.now * 1000)
      return yield* op({ ...(yield* Payments), ...(yield* PaymentCommitments) })
    })
  )
  commandsRun++
  if (Exit.isSuccess(exit)) {
    reached.add(exit.value.status)
    return { ok: exit.value }
  }
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error?._tag === "Fail" && isDomainError(error.error)) {
    reached.add(errorCode(error.error))
    return { code: errorCode(error.error) }
  }
  throw new Error(`unexpected failure: ${String(exit.cause)}`)
}

/** After every command: stored changes follow API rules §4 only, and each change has one event. */
const checkInvariants = (real: Real) => {
  for (const id of real.ids) {
    const stored = real.store.payments.get(id)!
    const before = real.seen.get(id)!
    if (before !== stored.status) {
      expect(isFinal(before), `${id}: terminal ${before} changed to ${stored.status}`).toBe(false)
      expect(allowed.has(`${before}>${stored.status}`), `${before} > ${stored.status}`).toBe(true)
    }
    real.seen.set(id, stored.status)
    const events = real.store.events.filter((e) => e.paymentId === id)
    expect(events.length).toBe(stored.stateVersion)
    expect(events.at(-1)?.payment.status).toBe(stored.status)
  }
}

const expectOutcome = (outcome: Outcome, expected: PaymentStatus | DomainErrorCode, model: Model, index: number) => {
  if ("code" in outcome) {
    expect(outcome.code).toBe(expected)
    return
  }
  expect(outcome.ok.status).toBe(expected)
  const p = model.payments[index]!
  expect(outcome.ok.status).toBe(effective(p, model.now))
}

type Command = fc.AsyncCommand<Model, Real>

const command = (label: string, needsPayment: boolean, body: (model: Model, real: Real) => Promise<void>): Command => ({
  check: (model) => !needsPayment || model.payments.length > 0,
  run: body,
  toString: () => label
})

const target = (index: number, model: Model, real: Real) => {
  const i = index % model.payments.length
  return { i, p: model.payments[i]!, id: real.ids[i]! }
}

const create = command("create", false, async (model, real) => {
  const outcome = await run(model, real, (s) =>
    s.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "order-1" }))
  if (!("ok" in outcome)) throw new Error(`create failed: ${outcome.code}`)
  expect(outcome.ok.status).toBe("requires_action")
  expect(outcome.ok.expiresAt).toBe(model.now + 900)
  model.payments.push({ status: "requires_action", expiresAt: outcome.ok.expiresAt, fingerprint: null })
  real.ids.push(outcome.ok.id)
  real.seen.set(outcome.ok.id, "requires_action")
  checkInvariants(real)
})

const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const confirm = (index: number, variant: number, quoteTtl: number | null, account: string, signature: string) =>
  command(`confirm(${index}, v${variant}, ttl=${quoteTtl}, ${account === sanctioned ? "sanctioned" : "buyer"}, ${signature})`, true, async (model, real) => {
    const { i, p, id } = target(index, model, real)
    const fingerprint = `fp-${variant}`
    const outcome = await run(model, real, (s) =>
      s.confirm(access, id, {
        option: { account, asset, tokenAmount: 12_500_000n, quoteExpiresAt: quoteTtl === null ? null : model.now + quoteTtl },
        proof: () => ({
          _tag: "Authorization",
          account,
          asset,
          to: "0x0000000000000000000000000000000000000001",
          value: 12_500_000n,
          validBefore: p.expiresAt,
          // One quote (nonce) per payment: an authorization pays for one payment only.
          nonce: `0x${i.toString(16).padStart(64, "0")}`,
          signature
        }),
        fingerprint,
        collectedData: null,
        walletName: "Test wallet"
      }))
    const status = effective(p, model.now)
    let expected: PaymentStatus | DomainErrorCode
    if (p.fingerprint !== null) expected = p.fingerprint === fingerprint ? status : "invalid_state"
    else if (status === "expired") expected = "payment_expired"
    else if (status !== "requires_action") expected = "invalid_state"
    else if (quoteTtl !== null && quoteTtl <= 0) expected = "quote_expired"
    else if (account === sanctioned) expected = "sanctioned_user"
    else if (signature === badSignature) expected = "params_validation"
    else {
      p.status = "processing"
      p.fingerprint = fingerprint
      expected = "processing"
    }
    expectOutcome(outcome, expected, model, i)
    checkInvariants(real)
  })

const chainOutcome = (index: number, result: "succeeded" | "failed") =>
  command(`chain(${index}, ${result})`, true, async (model, real) => {
    const { i, p, id } = target(index, model, real)
    const outcome = await run(model, real, (s) => s.settleOutcome(id, result, `0xabc${i}`))
    const expected = p.status === "processing" ? result : "invalid_state"
    if (p.status === "processing") p.status = result
    expectOutcome(outcome, expected, model, i)
    checkInvariants(real)
  })

const cancel = (index: number, byMerchant: boolean) =>
  command(`cancel(${index})`, true, async (model, real) => {
    const { i, p, id } = target(index, model, real)
    const reason = byMerchant ? "cancelled_by_merchant" : "cancelled_by_user"
    const outcome = await run(model, real, (s) => s.cancel(access, id, reason))
    const ok = effective(p, model.now) === "requires_action"
    if (ok) p.status = "cancelled"
    expectOutcome(outcome, ok ? "cancelled" : "invalid_state", model, i)
    if ("ok" in outcome) expect(outcome.ok.cancelledReason).toBe(reason)
    checkInvariants(real)
  })

const expire = (index: number) =>
  command(`expire(${index})`, true, async (model, real) => {
    const { i, p, id } = target(index, model, real)
    const outcome = await run(model, real, (s) => s.expire(id))
    const due = p.status === "requires_action" && model.now >= p.expiresAt
    if (due) p.status = "expired"
    expectOutcome(outcome, due ? "expired" : "invalid_state", model, i)
    checkInvariants(real)
  })

const read = (index: number, foreign: boolean) =>
  command(`read(${index}${foreign ? ", live key" : ""})`, true, async (model, real) => {
    const { i, p, id } = target(index, model, real)
    const outcome = await run(model, real, (s) => s.find(foreign ? { mode: "live", partnerId } : access, id))
    if (foreign) return void expect(outcome).toEqual({ code: "payment_not_found" })
    const status = effective(p, model.now)
    expectOutcome(outcome, status, model, i)
    if (!("ok" in outcome)) return
    if (model.now >= p.expiresAt) expect(outcome.ok.status).not.toBe("requires_action")
    const views: Record<PaymentStatus, string> = {
      requires_action: "pending",
      processing: "processing",
      succeeded: "succeeded",
      failed: "failed",
      expired: "expired",
      cancelled: "failed",
      authorized: "authorized",
      voided: "voided",
      reclaimed: "reclaimed"
    }
    expect(merchantStatus(outcome.ok.status)).toBe(views[status])
    expect(isFinal(outcome.ok.status)).toBe(status !== "requires_action" && status !== "processing")
    expect(pollInMs(outcome.ok.status)).toBe(status === "requires_action" ? 2000 : status === "processing" ? 1000 : null)
  })

const advance = (seconds: number) =>
  command(`advance(${seconds}s)`, false, async (model) => {
    model.now += seconds
  })

const index = fc.nat(20)
const commands = [
  fc.constant(create),
  fc.constant(create),
  fc.tuple(
    index,
    fc.nat(2),
    fc.option(fc.integer({ min: -60, max: 300 }), { nil: null }),
    fc.constantFrom(buyer, buyer, sanctioned),
    fc.constantFrom("0x5167", "0x5167", badSignature)
  ).map(([i, v, ttl, a, s]) => confirm(i, v, ttl, a, s)),
  fc.tuple(index, fc.constantFrom("succeeded" as const, "failed" as const)).map(([i, o]) => chainOutcome(i, o)),
  fc.tuple(index, fc.boolean()).map(([i, m]) => cancel(i, m)),
  index.map(expire),
  fc.tuple(index, fc.boolean()).map(([i, f]) => read(i, f)),
  fc.constantFrom(1, 60, 299, 300, 600, 899, 900, 1800).map(advance)
]

describe("payment status machine (model-based)", () => {
  it("follows API rules §4 over random command sequences", async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "+1" }), fc.integer({ min: 1 }), async (cmds, seed) => {
        runs++
        const store = makeMemoryStore()
        const layer = Layer.mergeAll(Payments.layer, PaymentCommitments.layer.pipe(Layer.provide(layerTestDataCollection()), Layer.provide(Payments.layer))).pipe(
          Layer.provideMerge(IdGenerator.layer),
          Layer.provide([
            layerMemory(store),
            oneMerchant(partnerId, merchantId),
            scriptedChain({ invalid: new Set([badSignature]) }),
            screeningList([sanctioned]),
            seededSecureRandom(seed),
            // The payments are sandbox ones: their asset's chain is a test network here.
            Layer.succeed(NetworkModes, { modeOf: (chainId: string) => (chainId === "eip155:1" ? "sandbox" as const : undefined) })
          ]),
          Layer.provideMerge(TestClock.layer())
        )
        const runtime = ManagedRuntime.make(layer)
        try {
          await fc.asyncModelRun(() => ({ model: { now: start / 1000, payments: [] }, real: { runtime, store, ids: [], seen: new Map() } }), cmds)
        } finally {
          await runtime.dispose()
        }
      }),
      { numRuns: 1000 }
    )
    expect(runs).toBeGreaterThanOrEqual(1000)
    expect(commandsRun).toBeGreaterThan(10_000)
    expect([...reached].sort()).toEqual([
      "cancelled", "expired", "failed", "invalid_state", "params_validation", "payment_expired",
      "payment_not_found", "processing", "quote_expired", "requires_action", "sanctioned_user", "succeeded"
    ])
  })
})
