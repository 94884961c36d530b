import { Clock, Context, Effect, Layer, Option } from "effect"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { SubscriptionId } from "../ids/Ids.ts"
import { type ChargeRefused, SubscriptionChain } from "../ports/SubscriptionChain.ts"
import { SubscriptionRepository } from "../ports/SubscriptionRepository.ts"
import { isFinalSubscription, type Subscription } from "../subscription/Subscription.ts"
import { firstCharge, type SubscriptionCharge } from "../subscription/SubscriptionCharge.ts"
import type { SubscriptionEventType } from "../subscription/SubscriptionEvent.ts"
import { chargeDeadline, periodStart } from "../subscription/SubscriptionTerms.ts"
import { type ChargeChange, makeSubscriptionCommit } from "./SubscriptionCommit.ts"
import { traced } from "./Traced.ts"

/** How the worker charges subscriptions. */
export interface ChargePolicyShape {
  /**
   * When a period's charge is tried again after the payer was short of funds: seconds after the
   * period began. Retries past the period's charge deadline are dropped; after the last one the
   * subscription ends `unpaid`.
   */
  readonly retryAfterSeconds: ReadonlyArray<number>
  /** How soon a sent transaction, or a charge the chain found early, is looked at again. */
  readonly followMillis: number
  /** How long to wait after the chain could not be asked, or refused for a reason of its own. */
  readonly backoffMillis: number
}

/** By default a failed charge is retried 1, 3 and 5 days into its period. */
export const ChargePolicy = Context.Reference<ChargePolicyShape>("@paygate/domain/ChargePolicy", {
  defaultValue: () => ({ retryAfterSeconds: [86_400, 3 * 86_400, 5 * 86_400], followMillis: 2_000, backoffMillis: 30_000 })
})

// A paused subscription's next look: none until it resumes.
const parked = Number.MAX_SAFE_INTEGER

/** Where one look left a subscription: `final` (nothing more to do) or `scheduled` (its next look is set). */
export type SubscriptionStep = "final" | "scheduled"

/**
 * The worker's side of subscriptions: gives the contract the buyer's signed permit, charges each
 * period when it begins, retries a period whose payer was short of funds on the {@link ChargePolicy}
 * schedule, ends the subscription when every period is charged or a period's last retry failed, and
 * closes in the contract a subscription cancelled or ended unpaid here. Every change commits with
 * its events and the time of the subscription's next look, as a compare-and-set: of two workers one
 * writes, and the other's look changes nothing.
 *
 * Nothing is charged twice: a charge's transaction is recorded before it is followed, and one sent
 * again after a crash meets the contract's per-period cap, which the chain reports as the period
 * already charged. Periods are charged in order; one the service missed altogether (it was down past
 * the contract's window) is recorded failed and the next is charged.
 */
export class SubscriptionCharges extends Context.Service<SubscriptionCharges, {
  readonly advance: (id: SubscriptionId) => Effect.Effect<SubscriptionStep>
}>()("@paygate/domain/SubscriptionCharges") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    SubscriptionCharges,
    Effect.gen(function*() {
      const repo = yield* SubscriptionRepository
      const chain = yield* SubscriptionChain
      const ids = yield* IdGenerator
      const policy = yield* ChargePolicy

      const write = makeSubscriptionCommit(repo, ids)
      // Lost to another worker: it wrote this look's outcome, and its next look.
      const commit = (read: Subscription, patch: Partial<Subscription>, change?: ChargeChange, types?: ReadonlyArray<SubscriptionEventType>) =>
        Effect.map(write(read, patch, change, types), ({ subscription }) =>
          isFinalSubscription(subscription.status) && subscription.closedOnChain ? "final" as const : "scheduled" as const)

      const at = (subscription: Subscription, millis: number) =>
        subscription.nextCheckAt === millis ? Effect.succeed("scheduled" as const) : commit(subscription, { nextCheckAt: millis })

      const after = (subscription: Subscription, millis: number) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => commit(subscription, { nextCheckAt: now + millis }))

      // ---- subscribing: the contract takes the buyer's permit ----

      const activate = (subscription: Subscription) =>
        commit(subscription, { status: "active", nextCheckAt: periodStart(subscription.terms, 0) * 1000 }, undefined, ["subscription.activated"])

      // No transaction of ours is known to carry the permit: the contract may hold it all the same
      // (one sent before a crash), else it is sent while its deadline allows.
      const sendSubscribe = Effect.fnUntraced(function*(subscription: Subscription) {
        if ((yield* chain.onChain(subscription.terms)).subscribed) return yield* activate(subscription)
        const now = yield* Clock.currentTimeMillis
        if (now >= subscription.permit.sigDeadline * 1000) {
          return yield* commit(subscription, { status: "ended", endedReason: "not_subscribed", closedOnChain: true }, undefined, ["subscription.ended"])
        }
        const sent = yield* chain.subscribe(subscription.terms, subscription.permit.sigDeadline, subscription.permit.signature).pipe(
          Effect.map(Option.some),
          Effect.catchTag("SubmissionRefused", (error) =>
            Effect.as(Effect.logWarning(`subscriptions: ${subscription.id}: the contract refuses the permit now: ${error.message}`), Option.none<string>()))
        )
        if (Option.isNone(sent)) return yield* after(subscription, policy.backoffMillis)
        return yield* commit(subscription, { subscribeTx: sent.value, nextCheckAt: now + policy.followMillis })
      })

      const subscribing = Effect.fnUntraced(function*(subscription: Subscription) {
        if (subscription.subscribeTx === null) return yield* sendSubscribe(subscription)
        const outcome = yield* chain.observe(subscription.terms, subscription.subscribeTx)
        if (outcome === "succeeded") return yield* activate(subscription)
        // Ours moved nothing: forgotten, so the next look reads the contract and sends again if it must.
        if (outcome === "failed" || outcome === "dropped") return yield* commit(subscription, { subscribeTx: null, nextCheckAt: 0 })
        return yield* after(subscription, policy.followMillis)
      })

      // ---- charging: a period's charge when it begins, its retries, the end of the term ----

      const paid = (subscription: Subscription, change: Omit<ChargeChange, "patch">, txHash: string | null) => {
        const { terms } = subscription
        const next = change.charge.periodIndex + 1
        const last = terms.periods !== null && next >= terms.periods
        return commit(
          subscription,
          last
            ? { status: "ended", endedReason: "completed", closedOnChain: true }
            : { status: subscription.status === "paused" ? "paused" : "active", nextCheckAt: periodStart(terms, next) * 1000 },
          { ...change, patch: { status: "succeeded", txHash, lastError: null } },
          last ? ["subscription.charged", "subscription.ended"] : ["subscription.charged"]
        )
      }

      // The payer was short of funds (or our transaction reverted): the next retry of the period's
      // schedule that still fits its window, or the end.
      const attemptFailed = Effect.fnUntraced(function*(subscription: Subscription, change: Omit<ChargeChange, "patch">, why: string) {
        const now = yield* Clock.currentTimeMillis
        const { terms } = subscription
        const index = change.charge.periodIndex
        const failedAttempts = change.charge.failedAttempts + 1
        const deadline = chargeDeadline(terms, index) * 1000
        const retryAt = policy.retryAfterSeconds
          .map((seconds) => (periodStart(terms, index) + seconds) * 1000)
          .find((millis) => millis > now && millis < deadline)
        if (retryAt === undefined) {
          return yield* commit(
            subscription,
            { status: "ended", endedReason: "unpaid", nextCheckAt: now },
            { ...change, patch: { status: "failed", failedAttempts, txHash: null, lastError: why } },
            ["subscription.charge_failed", "subscription.ended"]
          )
        }
        return yield* commit(
          subscription,
          { status: subscription.status === "paused" ? "paused" : "past_due", nextCheckAt: retryAt },
          { ...change, patch: { failedAttempts, nextAttemptAt: retryAt, txHash: null, lastError: why } },
          ["subscription.charge_failed"]
        )
      })

      const refused = (subscription: Subscription, change: Omit<ChargeChange, "patch">, error: ChargeRefused) =>
        Effect.gen(function*() {
          switch (error.reason) {
            case "charged":
              return yield* paid(subscription, change, null)
            case "insufficient_funds":
              return yield* attemptFailed(subscription, change, error.message)
            case "revoked":
            case "closed":
              // The payer withdrew on chain: a cancellation, by the payer.
              return yield* commit(
                subscription,
                { status: "cancelled", cancelledBy: "payer", closedOnChain: error.reason === "closed", nextCheckAt: yield* Clock.currentTimeMillis },
                { ...change, patch: { status: "failed", txHash: null, lastError: error.message } },
                ["subscription.cancelled"]
              )
            case "early":
              // The chain's clock trails ours by up to a block: looked at again in a moment.
              return yield* after(subscription, policy.followMillis)
            case "other":
              yield* Effect.logWarning(`subscriptions: ${subscription.id}: the contract refuses period ${change.charge.periodIndex}'s charge: ${error.message}`)
              return yield* after(subscription, policy.backoffMillis)
          }
        })

      const followCharge = Effect.fnUntraced(function*(subscription: Subscription, change: Omit<ChargeChange, "patch">, txHash: string) {
        const outcome = yield* chain.observe(subscription.terms, txHash)
        if (outcome === "succeeded") return yield* paid(subscription, change, txHash)
        if (outcome !== "failed" && outcome !== "dropped") return yield* after(subscription, policy.followMillis)
        // Another transaction of ours (sent before a crash) may have charged the period.
        const { amount, periodIndex } = change.charge
        if ((yield* chain.charged(subscription.terms, periodIndex)) >= amount) return yield* paid(subscription, change, null)
        if (outcome === "failed") return yield* attemptFailed(subscription, change, `the charge transaction ${txHash} reverted`)
        return yield* commit(subscription, { nextCheckAt: (yield* Clock.currentTimeMillis) + policy.backoffMillis }, { ...change, patch: { txHash: null } })
      })

      const charging = Effect.fnUntraced(function*(subscription: Subscription, charges: ReadonlyArray<SubscriptionCharge>) {
        const { terms } = subscription
        const now = yield* Clock.currentTimeMillis
        const index = charges.filter((c) => c.status !== "pending").length
        if (terms.periods !== null && index >= terms.periods) {
          return yield* commit(subscription, { status: "ended", endedReason: "completed", closedOnChain: true }, undefined, ["subscription.ended"])
        }
        // Replaced from this period on: the contract is closed too (its term would go on).
        if (subscription.endPeriod !== null && index >= subscription.endPeriod) {
          return yield* commit(subscription, { status: "ended", endedReason: "replaced", nextCheckAt: now }, undefined, ["subscription.ended"])
        }
        const begins = periodStart(terms, index) * 1000
        const read = charges.find((c) => c.periodIndex === index)
        const charge = read ?? firstCharge(subscription, index, begins)
        if (charge.txHash !== null) return yield* followCharge(subscription, { read, charge }, charge.txHash)
        // Paused: nothing more until the merchant resumes it (which makes it due).
        if (subscription.status === "paused") return yield* at(subscription, parked)
        if (subscription.skipUntil !== null && index < subscription.skipUntil) {
          return yield* commit(subscription, { status: "active", nextCheckAt: now }, { read, charge, patch: { status: "skipped", lastError: null } })
        }
        if (now < begins) return yield* at(subscription, begins)
        if (now < charge.nextAttemptAt) return yield* at(subscription, charge.nextAttemptAt)
        if (now >= chargeDeadline(terms, index) * 1000) {
          return yield* commit(
            subscription,
            { status: "active", nextCheckAt: now },
            { read, charge, patch: { status: "failed", lastError: "the period's window passed before the service charged it" } },
            ["subscription.charge_failed"]
          )
        }
        return yield* chain.charge(terms, index, charge.amount).pipe(
          Effect.flatMap((txHash) => commit(subscription, { nextCheckAt: now + policy.followMillis }, { read, charge, patch: { txHash } })),
          Effect.catchTag("ChargeRefused", (error) => refused(subscription, { read, charge }, error))
        )
      })

      // ---- closing: a subscription cancelled or ended unpaid here is cancelled in the contract too ----

      const closing = Effect.fnUntraced(function*(subscription: Subscription, charges: ReadonlyArray<SubscriptionCharge>) {
        // A charge sent before the cancellation may still land: its outcome is recorded first.
        const open = charges.find((c) => c.status === "pending")
        if (open !== undefined) {
          const change = { read: open, charge: open }
          if (open.txHash !== null) {
            const outcome = yield* chain.observe(subscription.terms, open.txHash)
            if (outcome === "succeeded") return yield* commit(subscription, {}, { ...change, patch: { status: "succeeded" } }, ["subscription.charged"])
            if (outcome !== "failed" && outcome !== "dropped") return yield* after(subscription, policy.followMillis)
          }
          return yield* commit(subscription, {}, { ...change, patch: { status: "failed", txHash: null, lastError: `the subscription was ${subscription.status}` } })
        }
        if (subscription.cancelTx === null) {
          const held = yield* chain.onChain(subscription.terms)
          if (!held.subscribed && subscription.subscribeTx !== null) {
            // A permit on its way could still give the contract the subscription: waited for.
            const outcome = yield* chain.observe(subscription.terms, subscription.subscribeTx)
            if (outcome === "pending" || outcome === "unknown") return yield* after(subscription, policy.followMillis)
          }
          if (!held.subscribed || held.cancelled) return yield* commit(subscription, { closedOnChain: true })
          const sent = yield* chain.cancel(subscription.terms).pipe(
            Effect.map(Option.some),
            Effect.catchTag("SubmissionRefused", (error) =>
              Effect.as(Effect.logWarning(`subscriptions: ${subscription.id}: the contract refuses the cancellation now: ${error.message}`), Option.none<string>()))
          )
          if (Option.isNone(sent)) return yield* after(subscription, policy.backoffMillis)
          return yield* commit(subscription, { cancelTx: sent.value, nextCheckAt: (yield* Clock.currentTimeMillis) + policy.followMillis })
        }
        const outcome = yield* chain.observe(subscription.terms, subscription.cancelTx)
        if (outcome === "succeeded") return yield* commit(subscription, { closedOnChain: true })
        if (outcome === "failed" || outcome === "dropped") return yield* commit(subscription, { cancelTx: null, nextCheckAt: 0 })
        return yield* after(subscription, policy.followMillis)
      })

      const advance = Effect.fnUntraced(function*(id: SubscriptionId) {
        const found = yield* repo.findById(id)
        if (Option.isNone(found)) return "final" as const
        const subscription = found.value
        if (isFinalSubscription(subscription.status) && subscription.closedOnChain) return "final" as const
        const charges = yield* repo.charges(id)
        const step = subscription.status === "subscribing"
          ? subscribing(subscription)
          : subscription.status === "active" || subscription.status === "past_due" || subscription.status === "paused"
          ? charging(subscription, charges)
          : closing(subscription, charges)
        return yield* step.pipe(
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.logWarning(`subscriptions: ${id}: the chain could not be asked; trying again later`, error.message).pipe(
              Effect.andThen(after(subscription, policy.backoffMillis))
            ))
        )
      }, traced("SubscriptionCharges.advance"))

      return SubscriptionCharges.of({ advance })
    })
  )
}
