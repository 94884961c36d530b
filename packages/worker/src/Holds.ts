/**
 * The held-payments job: claims `authorized` payments whose escrow work is due (leases, `FOR UPDATE
 * SKIP LOCKED`, shared by any number of workers; a merchant's capture or void makes one due at once)
 * and advances each through `HoldExecutions`: record what the escrow did, send the next capture or
 * void, void at the capture deadline when the merchant asked for that, and notice the buyer's reclaim.
 * A payment with nothing to do is looked at again after `waitingRecheckMs`, one left in the escrow past
 * its deadline for the buyer to reclaim after `dormantRecheckMs`.
 *
 * @module
 */
import { HoldExecutions, type HoldStep, HoldWork, type PaymentId } from "@paygate/domain"
import { Context, Effect, Layer, Option } from "effect"
import { type ConfiguredLeasedWork, leasedWork, leasedWorkSettingsFrom, type LeasedWorkSettings, millisOr } from "./LeasedWork.ts"

/** Tunables of the held-payments job. */
export interface HoldSettingsShape extends LeasedWorkSettings {
  /** Next look at a payment waiting for the merchant or its capture deadline (the deadline is the chain's clock). */
  readonly waitingRecheckMs: number
  /** Next look at one past its deadline left for the buyer's reclaim, which may never come. */
  readonly dormantRecheckMs: number
}

/** Held-payments job tunables (the host builds them, e.g. with {@link holdSettingsFrom}). */
export class HoldSettings extends Context.Service<HoldSettings, HoldSettingsShape>()("@paygate/worker/HoldSettings") {}

/**
 * The settings with what the operator configured (`HOLD_POLL_MS`, `HOLD_LEASE_MS`,
 * `HOLD_PENDING_RECHECK_MS`, `HOLD_UNKNOWN_RECHECK_MS`, `HOLD_WAITING_RECHECK_MS`,
 * `HOLD_DORMANT_RECHECK_MS`), each unset one its default (a waiting payment every minute, a dormant one
 * every hour).
 */
export const holdSettingsFrom = (
  configured: ConfiguredLeasedWork & { readonly waitingRecheckMs: Option.Option<number>; readonly dormantRecheckMs: Option.Option<number> }
): HoldSettingsShape => ({
  ...leasedWorkSettingsFrom(configured),
  waitingRecheckMs: millisOr(configured.waitingRecheckMs, 60_000),
  dormantRecheckMs: millisOr(configured.dormantRecheckMs, 3_600_000)
})

const holdKeeper: Effect.Effect<never, never, HoldSettings | HoldWork | HoldExecutions> = Effect.gen(function*() {
  const settings = yield* HoldSettings
  const work = yield* HoldWork
  const holds = yield* HoldExecutions
  return yield* leasedWork<PaymentId, Exclude<HoldStep, "final">>({
    name: "holds",
    settings,
    claim: work.claim,
    release: work.release,
    advance: holds.advance,
    recheckAfter: (step) =>
      step === "pending"
        ? settings.pendingRecheckMs
        : step === "waiting"
        ? settings.waitingRecheckMs
        : step === "dormant"
        ? settings.dormantRecheckMs
        : settings.unknownRecheckMs,
    describe: (id) => id
  })
})

/** The held-payments job, forked into the layer's scope. */
export const HoldJob: Layer.Layer<never, never, HoldSettings | HoldWork | HoldExecutions> = Layer.effectDiscard(
  Effect.forkScoped(holdKeeper).pipe(Effect.andThen(Effect.logInfo("worker started: holds")))
)
