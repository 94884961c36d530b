import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { MerchantNotFound, ParamsValidation, PaymentNotFound } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { MerchantId, PlanId } from "../ids/Ids.ts"
import { type Amount, fiatAmount } from "../money/Amount.ts"
import { fiatUnitPrefix, parseUnit, tokenUnitPrefix } from "../money/Unit.ts"
import { type Page, type PageRequest, toPage } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { assetMode, NetworkModes, offNetwork } from "../ports/NetworkModes.ts"
import { PlanRepository } from "../ports/PlanRepository.ts"
import { SubscriptionChain } from "../ports/SubscriptionChain.ts"
import { Plan } from "../subscription/Plan.ts"
import { validateFiatAmount } from "./CreateRules.ts"
import { shownText } from "./LinkRules.ts"
import { tokenAmount } from "./TokenAmount.ts"
import type { PartnerAccess } from "./Merchants.ts"
import { missingMerchant } from "./MissingMerchant.ts"

/** A request to create a plan for one of the partner's merchants. */
export interface CreatePlanInput {
  readonly merchantId: string
  readonly name: string
  /** Per period: `iso4217/<CODE>` in minor units, or `caip19/<asset>` in token base units. */
  readonly amount: { readonly unit: string; readonly value: string }
  readonly periodSeconds: number
  readonly trialSeconds?: number | undefined
  /** Omitted: open-ended, until cancelled. */
  readonly periods?: number | undefined
}

const day = 86_400
/** Live periods last at least a day; sandbox ones may be seconds long, to watch renewals in a test. */
export const minPeriodSeconds = (mode: Mode): number => (mode === "live" ? day : 5)
const maxPeriodSeconds = 5 * 366 * day
const maxTrialSeconds = 366 * day
const maxPeriods = 1_200
// Permit2 allowances are uint160: a period's amount times the periods must fit.
const maxTokenAmount = (1n << 160n) - 1n

const invalid = (message: string) => new ParamsValidation({ message })
const isCount = (n: number, min: number, max: number) => Number.isSafeInteger(n) && n >= min && n <= max

/** Subscription plans of the partner's merchants: create, read, list, and whether they take new subscribers. */
export class Plans extends Context.Service<Plans, {
  readonly create: (access: PartnerAccess, input: CreatePlanInput) => Effect.Effect<Plan, ParamsValidation | MerchantNotFound>
  readonly find: (access: PartnerAccess, id: string) => Effect.Effect<Plan, PaymentNotFound>
  readonly list: (access: PartnerAccess, input: { readonly merchantId?: string | undefined; readonly page: PageRequest }) => Effect.Effect<Page<Plan>>
  readonly setActive: (access: PartnerAccess, id: string, active: boolean) => Effect.Effect<Plan, PaymentNotFound>
}>()("@paygate/domain/Plans") {
  static readonly layer = Layer.effect(
    Plans,
    Effect.gen(function*() {
      const repo = yield* PlanRepository
      const merchants = yield* MerchantRepository
      const catalog = yield* AssetCatalog
      const modes = yield* NetworkModes
      const chain = yield* SubscriptionChain
      const ids = yield* IdGenerator

      const notFound = (id: string) => new PaymentNotFound({ message: `No plan ${id}.` })
      const loadFor = (access: PartnerAccess, id: string) =>
        (Schema.is(PlanId)(id) ? repo.findById(id) : Effect.succeedNone).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(notFound(id)),
            onSome: (plan) => plan.partnerId === access.partnerId && plan.mode === access.mode ? Effect.succeed(plan) : Effect.fail(notFound(id))
          }))
        )

      // A token's amount: base units, on a chain with a subscription contract and of the merchant's mode.
      const tokenAmount = (mode: Mode, assetId: string, text: string) =>
        Effect.gen(function*() {
          const asset = catalog.asset(assetId)
          if (asset === undefined) return yield* invalid(`${assetId} is not a token this service accepts.`)
          if (assetMode(modes, assetId) !== mode) return yield* invalid(offNetwork(mode, assetId))
          if (!chain.chains.includes(asset.chainId)) return yield* invalid(`Subscriptions are not available on ${asset.networkName} (${asset.chainId}).`)
          if (!/^[1-9][0-9]{0,48}$/.test(text.trim()) || BigInt(text.trim()) > maxTokenAmount) {
            return yield* invalid("amount.value is a whole number of the token's base units, above zero.")
          }
          return { unit: `${tokenUnitPrefix}${asset.assetId}`, value: BigInt(text.trim()) }
        })

      const create = Effect.fn("Plans.create")(function*(access: PartnerAccess, input: CreatePlanInput) {
        const name = yield* shownText("name", input.name, 200)
        const unit = yield* parseUnit(input.amount.unit)
        const amount = unit._tag === "Fiat"
          ? yield* Effect.map(validateFiatAmount(input.amount), ({ currency, value }) => ({ unit: `${fiatUnitPrefix}${currency}`, value }))
          : yield* tokenAmount(access.mode, unit.assetId, input.amount.value)
        const minPeriod = minPeriodSeconds(access.mode)
        if (!isCount(input.periodSeconds, minPeriod, maxPeriodSeconds)) {
          return yield* invalid(`periodSeconds must be an integer from ${minPeriod} to ${maxPeriodSeconds}${access.mode === "live" ? " (a day to five years)" : ""}.`)
        }
        const trialSeconds = input.trialSeconds ?? 0
        if (!isCount(trialSeconds, 0, maxTrialSeconds)) return yield* invalid(`trialSeconds must be an integer from 0 to ${maxTrialSeconds}.`)
        if (input.periods !== undefined && !isCount(input.periods, 1, maxPeriods)) {
          return yield* invalid(`periods must be an integer from 1 to ${maxPeriods}, or left out for a plan that runs until cancelled.`)
        }
        const merchant = Schema.is(MerchantId)(input.merchantId)
          ? yield* merchants.findById(access.partnerId, access.mode, input.merchantId)
          : Option.none()
        if (Option.isNone(merchant) || merchant.value.deleted) {
          return yield* missingMerchant(merchants, access.partnerId, access.mode, input.merchantId).pipe(Effect.flip)
        }
        const millis = yield* Clock.currentTimeMillis
        const plan = new Plan({
          id: yield* ids.make("plan"),
          partnerId: access.partnerId,
          merchantId: merchant.value.id,
          mode: access.mode,
          name,
          unit: amount.unit,
          value: amount.value,
          periodSeconds: input.periodSeconds,
          trialSeconds,
          periods: input.periods ?? null,
          active: true,
          createdAt: millis,
          updatedAt: millis
        })
        yield* repo.insert(plan)
        return plan
      })

      const find = Effect.fn("Plans.find")(function*(access: PartnerAccess, id: string) {
        return yield* loadFor(access, id)
      })

      const list = Effect.fn("Plans.list")(function*(access: PartnerAccess, input: { readonly merchantId?: string | undefined; readonly page: PageRequest }) {
        const plans = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          merchantId: input.merchantId as MerchantId | undefined,
          after: input.page.after,
          limit: input.page.limit + 1
        })
        return toPage(plans, input.page.limit)
      })

      const setActive = Effect.fn("Plans.setActive")(function*(access: PartnerAccess, id: string, active: boolean) {
        const plan = yield* loadFor(access, id)
        const stored = yield* repo.setActive(plan.id, active, yield* Clock.currentTimeMillis)
        return Option.getOrElse(stored, () => plan)
      })

      return Plans.of({ create, find, list, setActive })
    })
  )
}

/**
 * A plan's amount per period (or a subscription's: its token's unit and amount) as the API shows it;
 * a token no longer configured shows its id.
 */
export const planAmount = (catalog: AssetCatalog["Service"], plan: Pick<Plan, "unit" | "value">): Amount => {
  if (plan.unit.startsWith(fiatUnitPrefix)) return fiatAmount(plan.unit.slice(fiatUnitPrefix.length), plan.value)
  const assetId = plan.unit.slice(tokenUnitPrefix.length)
  const asset = catalog.asset(assetId)
  return asset !== undefined ? tokenAmount(asset, plan.value.toString()) : {
    unit: plan.unit,
    value: plan.value.toString(),
    display: { assetName: assetId, assetSymbol: assetId, decimals: 0, iconUrl: null, networkIconUrl: null, networkName: null }
  }
}
