import { gasReader } from "../ports/GasMeter.ts"
import { Context, Effect, Layer, Option } from "effect"
import type { DepositSweep } from "../deposit/DepositSweep.ts"
import type { SignedTransfer } from "../payout/Payout.ts"
import { DepositStore } from "../ports/DepositStore.ts"
import { DepositSweeper } from "../ports/DepositSweeper.ts"
import type { PayoutStep } from "./PayoutExecutions.ts"

/** Deposits one sweep transaction covers at most (each costs a deployment and a transfer in gas). */
export const maxSweepBatch = 50

const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): ReadonlyArray<ReadonlyArray<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return [...groups.values()]
}

const chunks = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/**
 * The worker's sweeps of deposit addresses: what arrived at a payment's deposit
 * address moves to the collection address, from where settlements and refunds are paid as for any
 * payment. Per round, over deposits the worker leased:
 *
 * - a recorded sweep is followed: `succeeded` (funds reached the collection address) marks every
 *   deposit it covered swept (up to the version it covered; a transfer noticed since keeps its
 *   deposit due); `failed` (included, moving nothing there), `reverted` or `dropped` frees them
 *   for a new sweep, which first reads what each still holds; `pending` broadcasts the same bytes again (perhaps never sent:
 *   a crash right after recording).
 * - the others are swept per token and factory in batches of up to {@link maxSweepBatch}: a deposit holding
 *   nothing is swept already; the rest get one transaction, recorded on each of them before its
 *   broadcast (of two workers, one records; the other sends nothing).
 *
 * Nothing is sent twice, and a sweep moves only what is there, so even two sweeps could never
 * move a deposit twice.
 */
export class DepositSweeps extends Context.Service<DepositSweeps, {
  /** One round over `claimed`: each deposit with where it stands (when to look again). */
  readonly advance: (claimed: ReadonlyArray<DepositSweep>) => Effect.Effect<ReadonlyArray<readonly [DepositSweep, PayoutStep]>>
}>()("@paygate/domain/DepositSweeps") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    DepositSweeps,
    Effect.gen(function*() {
      const store = yield* DepositStore
      const sweeper = yield* DepositSweeper
      const gasOf = yield* gasReader

      const follow = Effect.fnUntraced(function*(sweeps: ReadonlyArray<DepositSweep>, signed: SignedTransfer) {
        const asset = sweeps[0]!.asset
        const outcome = yield* sweeper.observe(asset, signed)
        switch (outcome) {
          case "succeeded": {
            // What it moved, as the chain says, for the ledger; the chain not answering: followed again later.
            const moved = yield* Effect.result(sweeper.moved(asset, signed))
            const gas = yield* Effect.result(gasOf(asset, signed.txHash))
            if (moved._tag === "Failure" || gas._tag === "Failure") return "unknown" as const
            yield* store.swept(signed.txHash, moved.success, gas.success)
            yield* Effect.logInfo(`sweep: ${signed.txHash} swept ${sweeps.length} deposit(s) in ${asset}`)
            return "final" as const
          }
          case "failed":
          case "reverted":
          case "dropped": {
            // Nothing reached the collection address: the deposits are due again (those found empty then are done).
            const why = outcome === "failed" ? "moved nothing to the collection address" : outcome
            // A mined sweep cost gas even so; a dropped one cost nothing.
            const gas = outcome === "dropped" ? undefined : yield* Effect.result(gasOf(asset, signed.txHash))
            if (gas?._tag === "Failure") return "unknown" as const
            yield* Effect.logWarning(`sweep: ${signed.txHash} ${why}; sweeping its deposits again`)
            yield* store.abandon(signed.txHash, `transaction ${signed.txHash} ${why}`, gas?.success)
            return outcome === "dropped" ? "pending" as const : "retry" as const
          }
          case "pending":
            yield* sweeper.resend(asset, signed).pipe(
              Effect.catchTag("ChainUnavailable", (error) => Effect.logWarning(`sweep: broadcasting ${signed.txHash} again failed: ${error.message}`))
            )
            return "pending" as const
          case "unknown":
            return "unknown" as const
        }
      })

      const sweepBatch = Effect.fnUntraced(function*(batch: ReadonlyArray<DepositSweep>) {
        const asset = batch[0]!.asset
        return yield* sweeper.send(batch, (signed) => store.recordSweep(batch, signed)).pipe(
          Effect.tap(Option.match({
            onNone: () => Effect.void,
            onSome: (signed) => Effect.logInfo(`sweep: sent ${signed.txHash} for ${batch.length} deposit(s) in ${asset}`)
          })),
          Effect.as("pending" as const),
          Effect.catchTags({
            PayoutReverted: (error) => Effect.as(Effect.logWarning(`sweep: a sweep in ${asset} would revert: ${error.message}`), "retry" as const),
            ChainUnavailable: (error) => Effect.as(Effect.logWarning(`sweep: ${asset} waits: ${error.message}`), "unknown" as const)
          })
        )
      })

      // Deposits without a sweep in flight: those holding nothing are done, the rest swept in batches.
      const sweepNew = Effect.fnUntraced(function*(sweeps: ReadonlyArray<DepositSweep>) {
        const balances = yield* Effect.forEach(sweeps, (s) =>
          Effect.map(Effect.result(sweeper.balance(s)), (balance) => [s, balance] as const), { concurrency: 8 })
        const steps: Array<readonly [DepositSweep, PayoutStep]> = []
        const holding: Array<DepositSweep> = []
        for (const [s, balance] of balances) {
          if (balance._tag === "Failure") steps.push([s, "unknown"])
          else if (balance.success === 0n) {
            yield* store.nothingLeft(s)
            steps.push([s, "final"])
          } else holding.push(s)
        }
        for (const batch of groupBy(holding, sweeper.batchOf).flatMap((group) => chunks(group, maxSweepBatch))) {
          const step = yield* sweepBatch(batch)
          for (const s of batch) steps.push([s, step])
        }
        return steps
      })

      const advance = Effect.fn("DepositSweeps.advance")(function*(claimed: ReadonlyArray<DepositSweep>) {
        const inFlight = claimed.filter((s) => s.transfer !== null)
        const followed = yield* Effect.forEach(groupBy(inFlight, (s) => s.transfer!.txHash), (sweeps) =>
          Effect.map(follow(sweeps, sweeps[0]!.transfer!), (step) => sweeps.map((s) => [s, step] as const)), { concurrency: 4 })
        const swept = yield* sweepNew(claimed.filter((s) => s.transfer === null))
        return [...followed.flat(), ...swept]
      })

      return DepositSweeps.of({ advance })
    })
  )
}
