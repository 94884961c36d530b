import { Schema } from "effect"

/** Id prefixes of API rules §8, one per resource kind. */
export const idPrefixes = {
  payment: "pay",
  merchant: "mer",
  partner: "ptn",
  refund: "ref",
  event: "evt",
  webhookEndpoint: "whe",
  settlement: "stl",
  apiKey: "key",
  app: "app",
  receipt: "rcp",
  paymentLink: "lnk",
  plan: "pln",
  subscription: "sub"
} as const

/** A resource kind that has an id. */
export type IdKind = keyof typeof idPrefixes

// Input acceptance is wider than what we generate (API rules §8): any 1–64 alphanumerics.
const idPattern = (prefix: string) =>
  Schema.String.pipe(Schema.check(Schema.isPattern(new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`))))

/** `pay_…`: a payment id; a bearer capability for the gateway (80 random bits). */
export const PaymentId = idPattern("pay").pipe(Schema.brand("PaymentId"))
/** A payment id. */
export type PaymentId = typeof PaymentId.Type

/** `mer_…`: a merchant id. */
export const MerchantId = idPattern("mer").pipe(Schema.brand("MerchantId"))
/** A merchant id. */
export type MerchantId = typeof MerchantId.Type

/** `ptn_…`: a partner id. */
export const PartnerId = idPattern("ptn").pipe(Schema.brand("PartnerId"))
/** A partner id. */
export type PartnerId = typeof PartnerId.Type

/** `ref_…`: a refund id. */
export const RefundId = idPattern("ref").pipe(Schema.brand("RefundId"))
/** A refund id. */
export type RefundId = typeof RefundId.Type

/** `evt_…`: an outbox event id (also the webhook id). */
export const EventId = idPattern("evt").pipe(Schema.brand("EventId"))
/** An event id. */
export type EventId = typeof EventId.Type

/** `whe_…`: a webhook endpoint id. */
export const WebhookEndpointId = idPattern("whe").pipe(Schema.brand("WebhookEndpointId"))
/** A webhook endpoint id. */
export type WebhookEndpointId = typeof WebhookEndpointId.Type

/** `stl_…`: a crypto settlement destination id. */
export const SettlementId = idPattern("stl").pipe(Schema.brand("SettlementId"))
/** A crypto settlement id. */
export type SettlementId = typeof SettlementId.Type

/** `key_…`: the public id of an API key (the secret itself is never stored). */
export const ApiKeyId = idPattern("key").pipe(Schema.brand("ApiKeyId"))
/** An API key id. */
export type ApiKeyId = typeof ApiKeyId.Type

/** `app_…`: a public wallet app id (gateway `App-Id`). */
export const AppId = idPattern("app").pipe(Schema.brand("AppId"))
/** An app id. */
export type AppId = typeof AppId.Type

/** `rcp_…`: a transfer the chain watcher found arriving at a collection address. */
export const ReceiptId = idPattern("rcp").pipe(Schema.brand("ReceiptId"))
/** A receipt id. */
export type ReceiptId = typeof ReceiptId.Type

/** `lnk_…`: a payment link (public: its page is shared with buyers). */
export const PaymentLinkId = idPattern("lnk").pipe(Schema.brand("PaymentLinkId"))
/** A payment link id. */
export type PaymentLinkId = typeof PaymentLinkId.Type

/** `pln_…`: a merchant's subscription plan. */
export const PlanId = idPattern("pln").pipe(Schema.brand("PlanId"))
/** A plan id. */
export type PlanId = typeof PlanId.Type

/** `sub_…`: a buyer's subscription to a plan. */
export const SubscriptionId = idPattern("sub").pipe(Schema.brand("SubscriptionId"))
/** A subscription id. */
export type SubscriptionId = typeof SubscriptionId.Type

/** The branded id type of each kind. */
export interface IdTypes {
  readonly payment: PaymentId
  readonly merchant: MerchantId
  readonly partner: PartnerId
  readonly refund: RefundId
  readonly event: EventId
  readonly webhookEndpoint: WebhookEndpointId
  readonly settlement: SettlementId
  readonly apiKey: ApiKeyId
  readonly app: AppId
  readonly receipt: ReceiptId
  readonly paymentLink: PaymentLinkId
  readonly plan: PlanId
  readonly subscription: SubscriptionId
}
