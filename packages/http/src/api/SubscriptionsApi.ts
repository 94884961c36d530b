import { InvalidParams, InvalidState, MerchantNotFound, ParamsValidation, PaymentNotFound, QuoteExpired } from "@paygate/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { wire } from "./ErrorWire.ts"
import { ResponseStorage } from "./ResponseStorage.ts"
import { GatewayAuth, PartnerAuth } from "./Security.ts"
import * as ApiWire from "./wire/index.ts"

/** Body of `POST /v1/plans`. Structural only: the rules are the use case's (docs/subscriptions.md). */
export const CreatePlanRequest = Schema.Struct({
  merchantId: Schema.String,
  name: Schema.String.annotate({ description: "What the buyer subscribes to, shown at checkout (1–200 characters)." }),
  amount: Schema.Struct({ unit: Schema.String, value: Schema.String }).annotate({
    description: "Per period: iso4217/<CODE> in minor units (the buyer's token amount is fixed when they sign), or caip19/<asset> in base units."
  }),
  periodSeconds: Schema.Number.annotate({ description: "Length of a period: at least a day (86400) for live plans, 5 seconds for sandbox ones." }),
  trialSeconds: Schema.optionalKey(Schema.Number.annotate({ description: "Time from signing to the first charge (default 0)." })),
  periods: Schema.optionalKey(Schema.Number.annotate({ description: "Periods in the term; left out, the subscription runs until cancelled." }))
}).annotate({ identifier: "CreatePlanRequest" })

/** A plan as the partner API shows it. */
export const PlanRecord = Schema.Struct({
  planId: Schema.String,
  merchantId: Schema.String,
  name: Schema.String,
  amount: ApiWire.Amount,
  periodSeconds: ApiWire.NonNegativeInt,
  trialSeconds: ApiWire.NonNegativeInt,
  periods: Schema.NullOr(ApiWire.NonNegativeInt),
  active: Schema.Boolean,
  /** The plan's hosted checkout: share it, or send buyers there. */
  url: Schema.String,
  createdAt: ApiWire.NonNegativeInt,
  updatedAt: ApiWire.NonNegativeInt
}).annotate({ identifier: "Plan" })
/** A plan record. */
export type PlanRecord = typeof PlanRecord.Type

/** A subscription with its charges, as the partner API shows it. */
export const SubscriptionDetail = Schema.Struct({
  ...ApiWire.SubscriptionRecord.fields,
  charges: Schema.Array(ApiWire.SubscriptionChargeRecord),
  /** The payer's page to see and cancel the subscription: put it in every receipt. */
  manageUrl: Schema.String
}).annotate({ identifier: "SubscriptionDetail" })
/** A subscription detail. */
export type SubscriptionDetail = typeof SubscriptionDetail.Type

const id = { id: Schema.String }
const notFound = wire(PaymentNotFound, "PaymentNotFound")
const invalidState = wire(InvalidState, "InvalidState")

/** Partner API: the subscription plans of the partner's merchants (docs/subscriptions.md). */
export class PlansApi extends HttpApiGroup.make("plans")
  .add(
    HttpApiEndpoint.post("create", "/v1/plans", {
      payload: CreatePlanRequest,
      success: PlanRecord.pipe(HttpApiSchema.status(201)),
      error: wire(MerchantNotFound, "MerchantNotFound")
    }).annotate(OpenApi.Summary, "Create a subscription plan for one of the partner's merchants"),
    HttpApiEndpoint.get("list", "/v1/plans", {
      query: { merchantId: Schema.optionalKey(Schema.String), limit: Schema.optionalKey(Schema.String), cursor: Schema.optionalKey(Schema.String) },
      success: Schema.Struct({ data: Schema.Array(PlanRecord), nextCursor: Schema.NullOr(Schema.String) }).annotate({ identifier: "PlanPage" })
    }).annotate(OpenApi.Summary, "List plans, newest first"),
    HttpApiEndpoint.get("get", "/v1/plans/:id", { params: id, success: PlanRecord, error: notFound }).annotate(OpenApi.Summary, "A plan"),
    HttpApiEndpoint.post("deactivate", "/v1/plans/:id/deactivate", { params: id, success: PlanRecord, error: notFound })
      .annotate(OpenApi.Summary, "Stop a plan taking new subscribers (its subscriptions go on)"),
    HttpApiEndpoint.post("activate", "/v1/plans/:id/activate", { params: id, success: PlanRecord, error: notFound })
      .annotate(OpenApi.Summary, "Let a deactivated plan take new subscribers again")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Subscription plans")
{}

/** Partner API: the subscriptions to the partner's plans. */
export class SubscriptionsApi extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.get("list", "/v1/subscriptions", {
      query: {
        merchantId: Schema.optionalKey(Schema.String),
        planId: Schema.optionalKey(Schema.String),
        limit: Schema.optionalKey(Schema.String),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: Schema.Struct({ data: Schema.Array(ApiWire.SubscriptionRecord), nextCursor: Schema.NullOr(Schema.String) })
        .annotate({ identifier: "SubscriptionPage" })
    }).annotate(OpenApi.Summary, "List subscriptions, newest first"),
    HttpApiEndpoint.get("get", "/v1/subscriptions/:id", { params: id, success: SubscriptionDetail, error: notFound })
      .annotate(OpenApi.Summary, "A subscription with its charges and the payer's manage link"),
    HttpApiEndpoint.post("cancel", "/v1/subscriptions/:id/cancel", { params: id, success: SubscriptionDetail, error: [notFound, invalidState] })
      .annotate(OpenApi.Summary, "Cancel a subscription: no charge is made after this (repeatable)"),
    HttpApiEndpoint.post("pause", "/v1/subscriptions/:id/pause", { params: id, success: SubscriptionDetail, error: [notFound, invalidState] })
      .annotate(OpenApi.Summary, "Pause a subscription: no period is charged until it resumes (repeatable)"),
    HttpApiEndpoint.post("resume", "/v1/subscriptions/:id/resume", { params: id, success: SubscriptionDetail, error: [notFound, invalidState] })
      .annotate(OpenApi.Summary, "Resume a paused subscription: charged again from its next period; the periods that began while paused are skipped")
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Subscriptions")
{}

/** A plan as its checkout shows it, with the tokens a buyer may subscribe with now. */
export const PlanCheckoutResponse = Schema.Struct({
  planId: Schema.String,
  name: Schema.String,
  merchant: Schema.Struct({ name: Schema.String, iconUrl: Schema.NullOr(Schema.String) }),
  amount: ApiWire.Amount,
  periodSeconds: ApiWire.NonNegativeInt,
  trialSeconds: ApiWire.NonNegativeInt,
  periods: Schema.NullOr(ApiWire.NonNegativeInt),
  active: Schema.Boolean,
  /** Tokens (CAIP-19) the buyer may pay in, with what a wallet shows for them; empty when none can be taken now. */
  assets: Schema.Array(Schema.Struct({ asset: Schema.String, chainId: Schema.String, display: ApiWire.AmountDisplay }))
}).annotate({ identifier: "PlanCheckout" })

/** Terms offered to a buyer's account. */
export const SubscriptionOfferResponse = Schema.Struct({
  /** Send it back with the signature. */
  offer: Schema.String,
  /** The token amount each period takes at most (base units): the plan's, or its fiat price now. */
  amountPerPeriod: ApiWire.Amount,
  /** When the first period begins (Unix seconds). */
  start: ApiWire.NonNegativeInt,
  receiver: Schema.String,
  /** Unix seconds: subscribe before then. */
  expiresAt: ApiWire.NonNegativeInt,
  /** EIP-712 typed data (JSON) of the Permit2 permit to sign with `eth_signTypedData_v4`. */
  typedData: Schema.String,
  /** The account must first let Permit2 (this address) move the token: `approve(permit2, amount)` on the token. */
  permit2: Schema.String
}).annotate({ identifier: "SubscriptionOffer" })

/** The payer's view of a subscription (through the manage link). */
export const PayerSubscriptionResponse = Schema.Struct({
  subscription: ApiWire.SubscriptionRecord,
  /** What each period takes at most, in the token signed for, with what a wallet shows for it (the charges' token). */
  amountPerPeriod: ApiWire.Amount,
  charges: Schema.Array(ApiWire.SubscriptionChargeRecord),
  plan: Schema.Struct({ name: Schema.String, amount: ApiWire.Amount }),
  merchant: Schema.Struct({ name: Schema.String, iconUrl: Schema.NullOr(Schema.String) })
}).annotate({ identifier: "PayerSubscription" })

const planId = { id: Schema.String }

/** Gateway API: a buyer subscribes to a plan (the hosted checkout, or a wallet), and manages it through its link. */
export class SubscribeApi extends HttpApiGroup.make("subscribe")
  .add(
    HttpApiEndpoint.get("plan", "/v1/gateway/plan/:id", { params: planId, success: PlanCheckoutResponse, error: notFound })
      .annotate(OpenApi.Summary, "A plan's checkout: its price, term and the tokens it takes"),
    HttpApiEndpoint.post("offer", "/v1/gateway/plan/:id/offer", {
      params: planId,
      payload: Schema.Struct({
        payer: Schema.String,
        asset: Schema.optionalKey(Schema.String),
        replaces: Schema.optionalKey(Schema.Struct({ subscriptionId: Schema.String, token: Schema.String }).annotate({
          description: "The payer's current subscription to this merchant (and its manage link's token): the new terms take over from its next period."
        }))
      }),
      success: SubscriptionOfferResponse,
      error: [notFound, invalidState, wire(ParamsValidation, "ParamsValidation")]
    }).annotate(OpenApi.Summary, "Terms for the payer's account, with the permit to sign").annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.post("subscribe", "/v1/gateway/plan/:id/subscribe", {
      params: planId,
      payload: Schema.Struct({ offer: Schema.String, signature: Schema.String }),
      success: Schema.Struct({ subscription: ApiWire.SubscriptionRecord, manageUrl: Schema.String }).annotate({ identifier: "SubscribeResponse" }),
      error: [notFound, invalidState, wire(QuoteExpired, "QuoteExpired"), wire(InvalidParams, "InvalidParams"), wire(ParamsValidation, "ParamsValidation")]
    }).annotate(OpenApi.Summary, "Subscribe with the signed permit (repeatable: the same offer answers the same subscription)")
      .annotate(ResponseStorage, "afterWork"),
    HttpApiEndpoint.get("manage", "/v1/gateway/subscription/:id", {
      params: { id: Schema.String },
      query: { token: Schema.String },
      success: PayerSubscriptionResponse,
      error: notFound
    }).annotate(OpenApi.Summary, "The payer's view of a subscription (the token of its manage link)"),
    HttpApiEndpoint.post("cancel", "/v1/gateway/subscription/:id/cancel", {
      params: { id: Schema.String },
      payload: Schema.Struct({ token: Schema.String }),
      success: PayerSubscriptionResponse,
      error: [notFound, invalidState]
    }).annotate(OpenApi.Summary, "The payer cancels (the token of its manage link)")
  )
  .middleware(GatewayAuth)
  .annotate(OpenApi.Title, "Subscribing")
{}
