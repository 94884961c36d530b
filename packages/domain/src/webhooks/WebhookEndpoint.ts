import { Effect, Schema } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"
import { MerchantId, PartnerId, WebhookEndpointId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"
import { ApiVersionLiteral } from "./ApiVersionSchema.ts"
import { eventOwner, type WebhookEvent, WebhookEventType } from "./WebhookEvent.ts"

/** `active` endpoints receive events; `disabled` ones (the receiver responded 410 Gone) receive none. */
export const WebhookEndpointStatus = Schema.Literals(["active", "disabled"])
/** An endpoint status. */
export type WebhookEndpointStatus = typeof WebhookEndpointStatus.Type

/**
 * A partner's webhook endpoint (API rules §6). It receives the events of its partner's payments
 * and merchants in its mode, of one merchant when `merchantId` is set, of the types in `events` (empty: every
 * type, including types added later).
 *
 * `secret` is the Standard Webhooks signing secret (`whsec_` + base64): shown to the partner once,
 * kept encrypted at rest by the adapters, redacted everywhere else.
 */
export class WebhookEndpoint extends Schema.Class<WebhookEndpoint>("paygate/WebhookEndpoint")({
  id: WebhookEndpointId,
  partnerId: PartnerId,
  mode: Mode,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  merchantId: Schema.NullOr(MerchantId),
  secret: Schema.Redacted(Schema.String),
  status: WebhookEndpointStatus,
  /** The API version the envelope's `apiVersion` names: the registering caller's version. */
  apiVersion: ApiVersionLiteral,
  /** Unix milliseconds. */
  createdAt: Schema.Int
}) {}

/** Whether `endpoint` is subscribed to `event` (status aside). */
export const subscribes = (endpoint: WebhookEndpoint, event: WebhookEvent): boolean => {
  const owner = eventOwner(event)
  return endpoint.partnerId === event.partnerId &&
    endpoint.mode === owner.mode &&
    (endpoint.merchantId === null || endpoint.merchantId === owner.merchantId) &&
    (endpoint.events.length === 0 || endpoint.events.includes(event.type))
}

/** Whether `endpoint` should receive `event` now: active and subscribed. */
export const shouldReceive = (endpoint: WebhookEndpoint, event: WebhookEvent): boolean =>
  endpoint.status === "active" && subscribes(endpoint, event)

const isEventType = Schema.is(WebhookEventType)

/** The event types requested for an endpoint, in their canonical order; an unknown one is `invalid_params`. */
export const eventTypes = (requested: ReadonlyArray<string> | null | undefined): Effect.Effect<ReadonlyArray<WebhookEventType>, InvalidParams> => {
  const types = requested ?? []
  const unknown = types.find((type) => !isEventType(type))
  return unknown === undefined
    ? Effect.succeed(WebhookEventType.literals.filter((type) => types.includes(type)))
    : Effect.fail(new InvalidParams({ message: `events must be among ${WebhookEventType.literals.join(", ")}.` }))
}

/** The event types an endpoint receives: its list, or every type when the list is empty. */
export const effectiveEvents = (endpoint: WebhookEndpoint): ReadonlyArray<WebhookEventType> =>
  endpoint.events.length === 0 ? WebhookEventType.literals : endpoint.events
