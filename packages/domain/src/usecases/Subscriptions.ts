import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import { accountChainId, formatAccountId, parseAccountId } from "../caip/AccountId.ts"
import { InvalidParams, InvalidState, ParamsValidation, PaymentNotFound, QuoteExpired } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { type MerchantId, type PlanId, PlanId as PlanIdSchema, SubscriptionId } from "../ids/Ids.ts"
import { isUsable } from "../merchant/CryptoSettlement.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import { fiatUnitPrefix, tokenUnitPrefix } from "../money/Unit.ts"
import { type Page, type PageRequest, toPage } from "../paging/Page.ts"
import { AssetCatalog, type PayableAsset } from "../ports/AssetCatalog.ts"
import { ChainUnavailable } from "../ports/ChainUnavailable.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { assetMode, NetworkModes } from "../ports/NetworkModes.ts"
import { PlanRepository } from "../ports/PlanRepository.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"
import { SubscriptionChain } from "../ports/SubscriptionChain.ts"
import { SubscriptionRepository } from "../ports/SubscriptionRepository.ts"
import { quotePayment } from "../quote/Quote.ts"
import type { Plan } from "../subscription/Plan.ts"
import { type CancelledBy, isFinalSubscription, SignedPermit, Subscription } from "../subscription/Subscription.ts"
import type { SubscriptionCharge } from "../subscription/SubscriptionCharge.ts"
import type { SubscriptionEventType } from "../subscription/SubscriptionEvent.ts"
import { periodStart, SubscriptionTerms } from "../subscription/SubscriptionTerms.ts"
import { type OfferClaims, SubscriptionTokens } from "../subscription/SubscriptionTokens.ts"
import type { Mode } from "../payment/Payment.ts"
import type { PartnerAccess } from "./Merchants.ts"
import { PaymentSettings } from "./PaymentSettings.ts"
import { makeSubscriptionCommit } from "./SubscriptionCommit.ts"

/** A plan as its checkout shows it: its merchant, and the tokens a buyer may subscribe with now. */
export interface PlanCheckout {
  readonly plan: Plan
  readonly merchant: Merchant
  readonly assets: ReadonlyArray<PayableAsset>
}

/** Terms offered to a buyer: the permit to sign (EIP-712 JSON) and the sealed offer to send back with the signature. */
export interface SubscriptionOffer {
  readonly plan: Plan
  readonly terms: SubscriptionTerms
  /** Unix seconds: the permit must reach the chain before it. */
  readonly sigDeadline: number
  /** Unix seconds: the offer is taken until then. */
  readonly expiresAt: number
  readonly typedData: string
  readonly offer: string
}

/** What a buyer asks terms for: their account, the token when the plan takes several, and the subscription they move from. */
export interface OfferInput {
  readonly payer: string
  readonly asset?: string | undefined
  /** The payer's current subscription (with its manage link's token), to take over from its next period. */
  readonly replaces?: { readonly subscriptionId: string; readonly token: string } | undefined
}

/** A subscription with its charges, by period. */
export interface SubscriptionView {
  readonly subscription: Subscription
  readonly charges: ReadonlyArray<SubscriptionCharge>
}

/** What the payer's link shows: the subscription, its plan and merchant. */
export interface PayerView extends SubscriptionView {
  readonly plan: Plan
  readonly merchant: Merchant
}

/** How long an offer of a plan without a rate (a token, or a pegged stablecoin) is taken. */
const offerSeconds = 15 * 60
/** How long after the offer the permit may still reach the chain: the worker's time to send it. */
const sendingSeconds = 60 * 60

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
// One offer makes one subscription: its id comes from the offer's random salt, so sending the same
// signed offer twice finds the first.
const idOf = (salt: string) => `sub_${salt.slice(2, 34)}` as SubscriptionId

/**
 * Subscriptions as merchants and buyers see them: a plan's checkout, the offer of terms to a buyer's
 * account, the buyer's signed subscription, and cancellations by the merchant or by the payer's
 * link. The worker does the rest (`SubscriptionCharges`).
 */
export class Subscriptions extends Context.Service<Subscriptions, {
  /** A plan's checkout for a buyer's client of `mode` (a plan of the other mode does not exist for it). */
  readonly checkout: (mode: Mode, planId: string) => Effect.Effect<PlanCheckout, PaymentNotFound>
  /** The mode of a plan, for its checkout page to call the gateway in. */
  readonly planModeOf: (planId: string) => Effect.Effect<Option.Option<Mode>>
  readonly offer: (mode: Mode, planId: string, input: OfferInput) => Effect.Effect<
    SubscriptionOffer,
    PaymentNotFound | InvalidState | ParamsValidation
  >
  readonly subscribe: (mode: Mode, planId: string, input: { readonly offer: string; readonly signature: string }) => Effect.Effect<
    Subscription,
    PaymentNotFound | InvalidState | InvalidParams | ParamsValidation | QuoteExpired
  >
  readonly find: (access: PartnerAccess, id: string) => Effect.Effect<SubscriptionView, PaymentNotFound>
  readonly list: (access: PartnerAccess, input: {
    readonly merchantId?: string | undefined
    readonly planId?: string | undefined
    readonly page: PageRequest
  }) => Effect.Effect<Page<Subscription>>
  readonly cancel: (access: PartnerAccess, id: string) => Effect.Effect<Subscription, PaymentNotFound | InvalidState>
  /** Stops charging until resumed (repeatable). */
  readonly pause: (access: PartnerAccess, id: string) => Effect.Effect<Subscription, PaymentNotFound | InvalidState>
  /** Charges again from the next period (repeatable). */
  readonly resume: (access: PartnerAccess, id: string) => Effect.Effect<Subscription, PaymentNotFound | InvalidState>
  /** The payer's link token of a subscription (for receipts). */
  readonly manageToken: (id: SubscriptionId) => Effect.Effect<string>
  /** The mode of a subscription, for its payer's page to call the gateway in (its token is checked there). */
  readonly modeOf: (id: string) => Effect.Effect<Option.Option<Mode>>
  readonly forPayer: (id: string, token: string) => Effect.Effect<PayerView, PaymentNotFound>
  readonly cancelByPayer: (id: string, token: string) => Effect.Effect<Subscription, PaymentNotFound | InvalidState>
}>()("@paygate/domain/Subscriptions") {
  static readonly layer = Layer.effect(
    Subscriptions,
    Effect.gen(function*() {
      const plans = yield* PlanRepository
      const repo = yield* SubscriptionRepository
      const merchants = yield* MerchantRepository
      const settlements = yield* SettlementRepository
      const catalog = yield* AssetCatalog
      const modes = yield* NetworkModes
      const oracle = yield* PriceOracle
      const chain = yield* SubscriptionChain
      const tokens = yield* SubscriptionTokens
      const random = yield* SecureRandom.SecureRandom
      const { quoteTtlSeconds } = yield* PaymentSettings
      const commit = makeSubscriptionCommit(repo, yield* IdGenerator)
      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      const planNotFound = (id: string) => new PaymentNotFound({ message: `No plan ${id}.` })
      const notFound = (id: string) => new PaymentNotFound({ message: `No subscription ${id}.` })
      // The unreachable chain is the buyer's to retry: nothing was decided.
      const unreachable = <A, E>(effect: Effect.Effect<A, E | ChainUnavailable>): Effect.Effect<A, Exclude<E, ChainUnavailable> | ParamsValidation> =>
        Effect.mapError(effect, (error) =>
          error instanceof ChainUnavailable
            ? new ParamsValidation({ message: `${error.chainId} cannot be reached just now; try again in a moment.` })
            : error as Exclude<E, ChainUnavailable>)

      // A plan and its merchant, as a buyer may see them (a deleted merchant's plans are gone).
      const publicPlan = (mode: Mode, id: string) =>
        Effect.gen(function*() {
          const plan = Schema.is(PlanIdSchema)(id) ? yield* plans.findById(id) : Option.none<Plan>()
          if (Option.isNone(plan) || plan.value.mode !== mode) return yield* planNotFound(id)
          const merchant = yield* merchants.findById(plan.value.partnerId, plan.value.mode, plan.value.merchantId)
          if (Option.isNone(merchant) || merchant.value.deleted) return yield* planNotFound(id)
          return { plan: plan.value, merchant: merchant.value }
        })

      // The tokens a buyer may subscribe with now, each with where its charges go: on a chain with a
      // subscription contract, of the plan's mode, priced when the plan is in a currency, and with a
      // settlement destination of the merchant past its change delay.
      const takeable = (plan: Plan) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const candidates = catalog.all.filter((asset) =>
            chain.chains.includes(asset.chainId) &&
            assetMode(modes, asset.assetId) === plan.mode &&
            (plan.unit.startsWith(fiatUnitPrefix) || plan.unit === `${tokenUnitPrefix}${asset.assetId}`)
          )
          const taken = yield* Effect.forEach(candidates, (asset) =>
            Effect.gen(function*() {
              const destination = yield* settlements.findByAsset(plan.merchantId, asset.assetId)
              if (Option.isNone(destination) || !isUsable(destination.value, millis)) return []
              const priced = !plan.unit.startsWith(fiatUnitPrefix) ||
                Option.isSome(yield* oracle.pricing(plan.unit.slice(fiatUnitPrefix.length), asset.assetId))
              return priced ? [{ asset, receiver: destination.value.destination }] : []
            }))
          return taken.flat()
        })

      const noReplace = (message: string) => new ParamsValidation({ message: `replaces: ${message}` })

      // The subscription a payer moves from: theirs (its link's token), the plan's merchant's, still running.
      const replaceable = (plan: Plan, payer: string, replaces: NonNullable<OfferInput["replaces"]>) =>
        Effect.gen(function*() {
          const found = Schema.is(SubscriptionId)(replaces.subscriptionId) && (yield* tokens.canManage(replaces.subscriptionId, replaces.token))
            ? yield* repo.findById(replaces.subscriptionId)
            : Option.none<Subscription>()
          if (Option.isNone(found)) return yield* noReplace("no subscription with that id and token.")
          const old = found.value
          if (old.merchantId !== plan.merchantId || old.mode !== plan.mode) return yield* noReplace("the subscription is to another merchant.")
          if (old.terms.payer !== payer) return yield* noReplace("payer must be the subscription's payer.")
          if (isFinalSubscription(old.status) || old.replacedBy !== null) return yield* noReplace(`the subscription is ${old.replacedBy !== null ? "already replaced" : old.status}.`)
          return old
        })

      // Stores `created` and marks `oldId` replaced by it from its start (a boundary of the old one's
      // periods) in one commit: the old one charges nothing from then on. Refused when the old one
      // charged (or is charging) a period from then on meanwhile; repeatable.
      const handOver = (oldId: string, created: Subscription) =>
        Effect.gen(function*() {
          for (;;) {
            const found = yield* repo.findById(oldId as SubscriptionId)
            if (Option.isNone(found)) return yield* new InvalidParams({ message: "offer replaces a subscription that does not exist." })
            const old = found.value
            if (old.replacedBy === created.id) return
            if (old.replacedBy !== null || isFinalSubscription(old.status)) {
              return yield* new InvalidState({ message: "The subscription this offer replaces has ended or was replaced; ask for a new offer." })
            }
            const endPeriod = (created.terms.start - old.terms.start) / old.terms.periodSeconds
            const charges = yield* repo.charges(old.id)
            if (charges.some((c) => c.periodIndex >= endPeriod && (c.status === "succeeded" || c.txHash !== null))) {
              return yield* new QuoteExpired({ message: "The subscription this offer replaces was charged for a later period meanwhile; ask for a new offer." })
            }
            const millis = yield* Clock.currentTimeMillis
            const replaced = new Subscription({
              ...old,
              replacedBy: created.id,
              endPeriod,
              nextCheckAt: millis,
              version: old.version + 1,
              updatedAt: Math.max(millis, old.updatedAt)
            })
            if (yield* repo.commit({ subscription: replaced, created })) return
          }
        })

      const checkout = Effect.fn("Subscriptions.checkout")(function*(mode: Mode, planId: string) {
        const { merchant, plan } = yield* publicPlan(mode, planId)
        return { plan, merchant, assets: plan.active ? (yield* takeable(plan)).map((t) => t.asset) : [] }
      })

      const offer = Effect.fn("Subscriptions.offer")(function*(mode: Mode, planId: string, input: OfferInput) {
        const { plan } = yield* publicPlan(mode, planId)
        if (!plan.active) return yield* new InvalidState({ message: "This plan takes no new subscribers." })
        const payer = yield* parseAccountId(input.payer, "payer")
        const assets = yield* takeable(plan)
        const chosen = input.asset === undefined && assets.length === 1
          ? assets[0]
          : assets.find((a) => a.asset.assetId === input.asset)
        if (chosen === undefined) {
          return yield* new ParamsValidation({
            message: assets.length === 0
              ? "This plan cannot be subscribed to just now: the merchant takes none of its tokens."
              : `asset must be one of ${assets.map((a) => a.asset.assetId).join(", ")}.`
          })
        }
        const { asset, receiver } = chosen
        const payerId = formatAccountId(payer)
        if (accountChainId(payerId) !== asset.chainId) {
          return yield* new ParamsValidation({ message: `payer must be an account on ${asset.chainId}, the token's chain.` })
        }
        const now = yield* nowSeconds
        let amount = plan.value
        let expiresAt = now + offerSeconds
        if (plan.unit.startsWith(fiatUnitPrefix)) {
          const currency = plan.unit.slice(fiatUnitPrefix.length)
          const pricing = yield* oracle.pricing(currency, asset.assetId)
          if (Option.isNone(pricing)) return yield* new ParamsValidation({ message: `${asset.symbol} cannot be priced in ${currency} just now.` })
          const quoted = quotePayment({ value: plan.value, currency }, asset.decimals, pricing.value, now, quoteTtlSeconds)
          amount = quoted.tokenAmount
          expiresAt = quoted.expiresAt ?? expiresAt
        }
        const replaced = input.replaces === undefined ? undefined : yield* replaceable(plan, payerId, input.replaces)
        const claims: OfferClaims = {
          planId: plan.id,
          payer: payerId,
          receiver,
          asset: asset.assetId,
          amountPerPeriod: amount.toString(),
          periodSeconds: plan.periodSeconds,
          // Taking over: from the replaced subscription's next period, with no trial (its current one is paid there).
          start: replaced === undefined ? now + plan.trialSeconds : nextBoundary(replaced, now),
          periods: plan.periods,
          salt: `0x${hex(yield* random.randomBytes(32))}`,
          sigDeadline: expiresAt + sendingSeconds,
          expiresAt,
          replaces: replaced?.id ?? null
        }
        const terms = termsOf(claims)
        const typedData = yield* chain.permitTypedData(terms, claims.sigDeadline).pipe(unreachable)
        return { plan, terms, sigDeadline: claims.sigDeadline, expiresAt, typedData, offer: yield* tokens.sealOffer(claims) }
      })

      const subscribe = Effect.fn("Subscriptions.subscribe")(function*(mode: Mode, planId: string, input: { readonly offer: string; readonly signature: string }) {
        const opened = yield* tokens.openOffer(input.offer)
        if (Option.isNone(opened) || opened.value.planId !== planId) {
          return yield* new InvalidParams({ message: "offer is not an offer this service made for this plan." })
        }
        const claims = opened.value
        const id = idOf(claims.salt)
        const { plan } = yield* publicPlan(mode, planId)
        const earlier = yield* repo.findById(id)
        if (Option.isSome(earlier)) return earlier.value
        if ((yield* nowSeconds) > claims.expiresAt) return yield* new QuoteExpired({ message: "The offer expired; ask for a new one." })
        if (!plan.active) return yield* new InvalidState({ message: "This plan takes no new subscribers." })
        const terms = termsOf(claims)
        yield* chain.verifyPermit(terms, claims.sigDeadline, input.signature).pipe(unreachable)
        const millis = yield* Clock.currentTimeMillis
        const subscription = new Subscription({
          id,
          planId: plan.id,
          partnerId: plan.partnerId,
          merchantId: plan.merchantId,
          mode: plan.mode,
          terms,
          permit: new SignedPermit({ signature: input.signature, sigDeadline: claims.sigDeadline }),
          subscribeTx: null,
          status: "subscribing",
          endedReason: null,
          cancelledBy: null,
          cancelTx: null,
          closedOnChain: false,
          replacedBy: null,
          endPeriod: null,
          skipUntil: null,
          nextCheckAt: millis,
          version: 1,
          createdAt: millis,
          updatedAt: millis
        })
        if (claims.replaces !== null) {
          yield* handOver(claims.replaces, subscription)
        } else if (yield* repo.insert(subscription)) {
          return subscription
        }
        // The same offer sent twice at once: the first stored answers both.
        return Option.getOrElse(yield* repo.findById(id), () => subscription)
      })

      const loadFor = (access: PartnerAccess, id: string) =>
        (Schema.is(SubscriptionId)(id) ? repo.findById(id) : Effect.succeedNone).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(notFound(id)),
            onSome: (s) => s.partnerId === access.partnerId && s.mode === access.mode ? Effect.succeed(s) : Effect.fail(notFound(id))
          }))
        )

      const withCharges = (subscription: Subscription) => Effect.map(repo.charges(subscription.id), (charges) => ({ subscription, charges }))

      const find = Effect.fn("Subscriptions.find")(function*(access: PartnerAccess, id: string) {
        return yield* withCharges(yield* loadFor(access, id))
      })

      const list = Effect.fn("Subscriptions.list")(function*(access: PartnerAccess, input: {
        readonly merchantId?: string | undefined
        readonly planId?: string | undefined
        readonly page: PageRequest
      }) {
        const rows = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          merchantId: input.merchantId as MerchantId | undefined,
          planId: input.planId as PlanId | undefined,
          after: input.page.after,
          limit: input.page.limit + 1
        })
        return toPage(rows, input.page.limit)
      })

      // A merchant's or payer's change, committed as a compare-and-set with its event: `decide` answers the
      // patch and event for the subscription as it stands, or `undefined` when it stands as asked already.
      // The worker changing it meanwhile makes it look again.
      const change = <E>(
        read: Subscription,
        decide: (current: Subscription, millis: number) => Effect.Effect<readonly [Partial<Subscription>, SubscriptionEventType] | undefined, E>
      ): Effect.Effect<Subscription, E> =>
        Effect.gen(function*() {
          let current = read
          for (;;) {
            const decided = yield* decide(current, yield* Clock.currentTimeMillis)
            if (decided === undefined) return current
            const written = yield* commit(current, decided[0], undefined, [decided[1]])
            if (written.committed) return written.subscription
            const again = yield* repo.findById(current.id)
            if (Option.isNone(again)) return current
            current = again.value
          }
        })

      const ended = (s: Subscription) => new InvalidState({ message: `The subscription already ended (${s.endedReason ?? s.status}).` })

      // Cancels here at once (no charge is sent after), with its event; the worker closes it in the
      // contract. Cancelling again answers the cancelled subscription; an ended one cannot be.
      const cancelAs = (by: CancelledBy) => (read: Subscription) =>
        change(read, (current, millis) =>
          current.status === "cancelled"
            ? Effect.succeed(undefined)
            : isFinalSubscription(current.status)
            ? Effect.fail(ended(current))
            : Effect.succeed([{ status: "cancelled", cancelledBy: by, nextCheckAt: millis }, "subscription.cancelled"] as const))

      // Paused, no period is charged (one already sent is still followed); resumed, the periods that began
      // meanwhile, and the one running, are skipped: charging goes on from the next period.
      const pause = Effect.fn("Subscriptions.pause")(function*(access: PartnerAccess, id: string) {
        return yield* change(yield* loadFor(access, id), (current, millis) =>
          current.status === "paused"
            ? Effect.succeed(undefined)
            : current.status === "active" || current.status === "past_due"
            ? Effect.succeed([{ status: "paused", nextCheckAt: millis }, "subscription.paused"] as const)
            : Effect.fail(isFinalSubscription(current.status) ? ended(current) : new InvalidState({ message: "The subscription is not active yet: it can be cancelled, not paused." })))
      })

      const resume = Effect.fn("Subscriptions.resume")(function*(access: PartnerAccess, id: string) {
        return yield* change(yield* loadFor(access, id), (current, millis) =>
          current.status !== "paused"
            ? isFinalSubscription(current.status) ? Effect.fail(ended(current)) : Effect.succeed(undefined)
            : Effect.succeed([{ status: "active", skipUntil: periodAfter(current, Math.floor(millis / 1000)), nextCheckAt: millis }, "subscription.resumed"] as const))
      })

      const cancel = Effect.fn("Subscriptions.cancel")(function*(access: PartnerAccess, id: string) {
        return yield* cancelAs("merchant")(yield* loadFor(access, id))
      })

      // The payer's link: a wrong token reads as no such subscription.
      const loadForPayer = (id: string, token: string) =>
        Effect.gen(function*() {
          if (!Schema.is(SubscriptionId)(id) || !(yield* tokens.canManage(id, token))) return yield* notFound(id)
          const found = yield* repo.findById(id)
          if (Option.isNone(found)) return yield* notFound(id)
          return found.value
        })

      const forPayer = Effect.fn("Subscriptions.forPayer")(function*(id: string, token: string) {
        const subscription = yield* loadForPayer(id, token)
        const plan = yield* plans.findById(subscription.planId)
        const merchant = yield* merchants.findById(subscription.partnerId, subscription.mode, subscription.merchantId)
        if (Option.isNone(plan) || Option.isNone(merchant)) return yield* notFound(id)
        return { ...(yield* withCharges(subscription)), plan: plan.value, merchant: merchant.value }
      })

      const cancelByPayer = Effect.fn("Subscriptions.cancelByPayer")(function*(id: string, token: string) {
        return yield* cancelAs("payer")(yield* loadForPayer(id, token))
      })

      const planModeOf = (id: string) =>
        Schema.is(PlanIdSchema)(id) ? Effect.map(plans.findById(id), Option.map((plan) => plan.mode)) : Effect.succeedNone

      const modeOf = (id: string) =>
        Schema.is(SubscriptionId)(id) ? Effect.map(repo.findById(id), Option.map((s) => s.mode)) : Effect.succeedNone

      return Subscriptions.of({
        checkout,
        planModeOf,
        offer,
        subscribe,
        find,
        list,
        cancel,
        pause,
        resume,
        manageToken: tokens.manageToken,
        modeOf,
        forPayer,
        cancelByPayer
      })
    })
  )
}

/** The first period of `subscription` that has not begun at `nowSeconds` (its first, before it starts). */
const periodAfter = (subscription: Subscription, nowSeconds: number) => {
  const { periodSeconds, start } = subscription.terms
  return nowSeconds < start ? 0 : Math.floor((nowSeconds - start) / periodSeconds) + 1
}

/** When that period begins. */
const nextBoundary = (subscription: Subscription, nowSeconds: number) => periodStart(subscription.terms, periodAfter(subscription, nowSeconds))

const termsOf = (claims: OfferClaims) =>
  new SubscriptionTerms({
    payer: claims.payer,
    receiver: claims.receiver,
    asset: claims.asset,
    amountPerPeriod: BigInt(claims.amountPerPeriod),
    periodSeconds: claims.periodSeconds,
    start: claims.start,
    periods: claims.periods,
    salt: claims.salt
  })
