import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { DepositSweep } from "../../src/deposit/DepositSweep.ts"
import type { PaymentId } from "../../src/ids/Ids.ts"
import { SignedTransfer } from "../../src/payout/Payout.ts"
import { DepositStore } from "../../src/ports/DepositStore.ts"
import { DepositSweeper } from "../../src/ports/DepositSweeper.ts"
import type { PayoutOutcome } from "../../src/ports/Payouts.ts"
import { DepositSweeps, maxSweepBatch } from "../../src/usecases/DepositSweeps.ts"

const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const sweep = (n: number, patch: Partial<DepositSweep> = {}) =>
  new DepositSweep({
    chainId: "eip155:1",
    address: `0x${n.toString(16).padStart(40, "0")}`,
    asset,
    paymentId: `pay_${n}` as PaymentId,
    markedVersion: 2,
    sweptVersion: 0,
    transfer: null,
    txVersion: null,
    attempts: 0,
    ...patch
  })

/** In-memory ports: what the use case asked of the store and the chain. */
const world = (options: { readonly balances?: (paymentId: string) => bigint; readonly outcome?: PayoutOutcome; readonly recordAnswer?: boolean } = {}) => {
  const calls = {
    recorded: [] as Array<ReadonlyArray<string>>,
    sent: [] as Array<ReadonlyArray<string>>,
    swept: [] as Array<string>,
    nothingLeft: [] as Array<string>,
    abandoned: [] as Array<string>,
    resent: [] as Array<string>
  }
  let n = 0
  const store = DepositStore.of({
    ensure: (deposit) => Effect.succeed(deposit.address),
    watched: () => Effect.succeed([]),
    markDue: () => Effect.void,
    claim: () => Effect.succeed([]),
    recordSweep: (sweeps) => Effect.sync(() => (calls.recorded.push(sweeps.map((s) => s.paymentId)), options.recordAnswer ?? true)),
    swept: (txHash) => Effect.sync(() => void calls.swept.push(txHash)),
    nothingLeft: (s) => Effect.sync(() => void calls.nothingLeft.push(s.paymentId)),
    abandon: (txHash) => Effect.sync(() => void calls.abandoned.push(txHash)),
    release: () => Effect.void
  })
  const sweeper = DepositSweeper.of({
    balance: (deposit) => Effect.succeed(options.balances?.(deposit.paymentId) ?? 1n),
    batchOf: (deposit) => deposit.asset,
    send: (deposits, record) =>
      Effect.gen(function*() {
        const signed = new SignedTransfer({ txHash: `0x${(++n).toString(16).padStart(64, "0")}`, raw: "0x02" })
        if (!(yield* record(signed))) return Option.none()
        calls.sent.push(deposits.map((d) => d.paymentId))
        return Option.some(signed)
      }),
    moved: () => Effect.succeed([]),
    resend: (_, signed) => Effect.sync(() => void calls.resent.push(signed.txHash)),
    observe: () => Effect.succeed(options.outcome ?? "pending")
  })
  const layer = DepositSweeps.layer.pipe(Layer.provide(Layer.mergeAll(Layer.succeed(DepositStore, store), Layer.succeed(DepositSweeper, sweeper))))
  const advance = (claimed: ReadonlyArray<DepositSweep>) =>
    Effect.gen(function*() {
      return yield* (yield* DepositSweeps).advance(claimed)
    }).pipe(Effect.provide(layer))
  return { calls, advance }
}

const inFlight = (n: number, txHash: string) =>
  sweep(n, { transfer: new SignedTransfer({ txHash, raw: "0x02" }), txVersion: 2 })

describe("DepositSweeps", () => {
  it.effect("sweeps what deposits hold in batches of at most maxSweepBatch, recorded before sent; empty ones are done", () =>
    Effect.gen(function*() {
      const { advance, calls } = world({ balances: (id) => (id === "pay_3" ? 0n : 5n) })
      const claimed = Array.from({ length: maxSweepBatch + 11 }, (_, i) => sweep(i + 1))
      const steps = yield* advance(claimed)
      assert.deepStrictEqual(calls.nothingLeft, ["pay_3"])
      assert.deepStrictEqual(calls.sent.map((batch) => batch.length), [maxSweepBatch, 10])
      assert.deepStrictEqual(calls.recorded, calls.sent)
      assert.strictEqual(steps.length, claimed.length)
      assert.deepStrictEqual(steps.filter(([, step]) => step === "final").map(([s]) => s.paymentId), ["pay_3"])
    }))

  it.effect("a batch another worker recorded first is not sent", () =>
    Effect.gen(function*() {
      const { advance, calls } = world({ recordAnswer: false })
      yield* advance([sweep(1), sweep(2)])
      assert.strictEqual(calls.recorded.length, 1)
      assert.deepStrictEqual(calls.sent, [])
    }))

  it.effect("a recorded sweep is followed, never signed again: succeeded swept, failed (moved nothing), reverted or dropped freed, pending broadcast again", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [PayoutOutcome, string, keyof ReturnType<typeof world>["calls"] | null]> = [
        ["succeeded", "final", "swept"],
        ["failed", "retry", "abandoned"],
        ["reverted", "retry", "abandoned"],
        ["dropped", "pending", "abandoned"],
        ["pending", "pending", "resent"],
        ["unknown", "unknown", null]
      ]
      for (const [outcome, step, call] of cases) {
        const { advance, calls } = world({ outcome })
        const steps = yield* advance([inFlight(1, "0xaa"), inFlight(2, "0xaa")])
        assert.deepStrictEqual(steps.map(([, s]) => s), [step, step], outcome)
        assert.deepStrictEqual(calls.sent, [], outcome)
        if (call !== null) assert.deepStrictEqual(calls[call], ["0xaa"], outcome)
      }
    }))
})
