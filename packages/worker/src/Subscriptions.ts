/**
 * The subscription job: claims subscriptions whose next look is due (leases, `FOR UPDATE SKIP
 * LOCKED`, so any number of workers share them) and advances each through `SubscriptionCharges`:
 * give the contract the buyer's permit, charge each period when it begins, retry a period the payer
 * could not pay, close in the contract what ended here. Each look commits the subscription's next
 * one itself (the domain's `ChargePolicy`), so the job only ends the lease; after a defect the
 * subscription waits `unknownRecheckMs`. It runs when a configured chain has a subscription vault
 * (`SubscriptionChain.chains`; the composition root's `Application.workerServices`).
 *
 * @module
 */
import { SubscriptionChain, SubscriptionCharges, type SubscriptionId, SubscriptionRepository } from "@paygate/domain"
import { Context, Effect, Layer, Option } from "effect"
import { type ConfiguredLeasedWork, leasedWork, leasedWorkSettingsFrom, type LeasedWorkSettings } from "./LeasedWork.ts"

/** Tunables of the subscription job; `pendingRecheckMs` is unused (each look sets the next). */
export type SubscriptionSettingsShape = LeasedWorkSettings

/** Subscription job tunables (the host builds them, e.g. with {@link subscriptionSettingsFrom}). */
export class SubscriptionSettings extends Context.Service<SubscriptionSettings, SubscriptionSettingsShape>()("@paygate/worker/SubscriptionSettings") {}

/**
 * The settings with what the operator configured (`SUBSCRIPTION_POLL_MS`, `SUBSCRIPTION_LEASE_MS`,
 * `SUBSCRIPTION_UNKNOWN_RECHECK_MS`), each unset one its default (`defaultLeasedWorkSettings`).
 */
export const subscriptionSettingsFrom = (configured: Omit<ConfiguredLeasedWork, "pendingRecheckMs">): SubscriptionSettingsShape =>
  leasedWorkSettingsFrom({ ...configured, pendingRecheckMs: Option.none() })

// The subscription loop; see the module documentation.
const subscriptionCharger: Effect.Effect<never, never, SubscriptionSettings | SubscriptionRepository | SubscriptionCharges> = Effect.gen(
  function*() {
    const settings = yield* SubscriptionSettings
    const repo = yield* SubscriptionRepository
    const charges = yield* SubscriptionCharges
    return yield* leasedWork<SubscriptionId, "looked">({
      name: "subscriptions",
      settings,
      claim: repo.claim,
      release: repo.release,
      // A final look ends the lease too: the use case answers from the version it meant to commit,
      // which another writer may have overtaken, and a lease left behind would hold the row.
      advance: (id) => Effect.as(charges.advance(id), "looked" as const),
      recheckAfter: (step) => (step === "unknown" ? settings.unknownRecheckMs : 0),
      describe: (id) => id
    })
  }
)

/** The subscription job when a configured chain has a subscription vault (nothing to charge without one). */
export const SubscriptionJob: Layer.Layer<never, never, SubscriptionChain | SubscriptionSettings | SubscriptionRepository | SubscriptionCharges> =
  Layer.unwrap(
    Effect.map(SubscriptionChain, (chain) =>
      chain.chains.length === 0
        ? Layer.empty
        : Layer.effectDiscard(Effect.forkScoped(subscriptionCharger).pipe(Effect.andThen(Effect.logInfo("worker started: subscriptions")))))
  )
