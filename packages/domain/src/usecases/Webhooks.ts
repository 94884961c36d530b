import { Clock, Context, Effect, Layer, Option, Predicate, Redacted, Result, Schema } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { InvalidParams, MerchantNotFound, ParamsValidation, PartnerNotFound, PaymentNotFound } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { EventId, MerchantId, PaymentId, WebhookEndpointId } from "../ids/Ids.ts"
import { type Page, pageRequest, toPage } from "../paging/Page.ts"
import { DeliveryQueue } from "../ports/DeliveryQueue.ts"
import { HostResolver } from "../ports/HostResolver.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { WebhookEndpointRepository } from "../ports/WebhookEndpointRepository.ts"
import { WebhookTransport } from "../ports/WebhookTransport.ts"
import { missingMerchant } from "./MissingMerchant.ts"
import type { PartnerAccess } from "./Merchants.ts"
import type { ApiVersion } from "../versioning/ApiVersion.ts"
import { classifyAddress } from "../webhooks/AddressClass.ts"
import type { Delivery } from "../webhooks/Delivery.ts"
import { generateSecret } from "../webhooks/Signature.ts"
import type { TestDelivery } from "../webhooks/TestEvent.ts"
import { sendSigned } from "./SignedWebhook.ts"
import { sendTestEvent } from "./WebhookTestEvent.ts"
import { eventTypes, subscribes, WebhookEndpoint, type WebhookEndpointStatus } from "../webhooks/WebhookEndpoint.ts"
import { checkWebhookUrl } from "../webhooks/WebhookUrl.ts"
import { eventOwner, type WebhookEvent } from "../webhooks/WebhookEvent.ts"
import { WebhookSettings } from "../webhooks/WebhookSettings.ts"

/** `POST /v1/webhooks` body. `null` for an optional field means the same as leaving it out. */
export interface RegisterWebhookInput {
  readonly url: string
  /** Event types; absent, `null` or empty: every type. Unknown types are `invalid_params`. */
  readonly events?: ReadonlyArray<string> | null | undefined
  /** Only this merchant's payments (an active merchant of the partner), else all of the partner's. */
  readonly merchantId?: string | null | undefined
}

/**
 * `PATCH /v1/webhooks/{id}` body: only what is given changes. `events` as at registration
 * (`null` or empty: every type); `status` `disabled` stops deliveries (pending ones end `failed`),
 * `active` resumes them for new events.
 */
export interface UpdateWebhookInput {
  readonly events?: ReadonlyArray<string> | null | undefined
  readonly status?: WebhookEndpointStatus | undefined
}

/** A page request of a list operation. */
interface PageInput {
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

/** A registered endpoint with its secret, shown this once. */
export interface RegisteredWebhook {
  readonly endpoint: WebhookEndpoint
  readonly secret: Redacted.Redacted<string>
}

/** Deliveries requested by a redelivery. */
export interface Redelivery {
  readonly eventId: EventId
  readonly deliveries: ReadonlyArray<Delivery>
}

/** The caller of a webhook operation: a partner credential, and the API version it speaks. */
export interface WebhookCaller extends PartnerAccess {
  readonly apiVersion: ApiVersion
}

const isEndpointId = Schema.is(WebhookEndpointId)
const isEventId = Schema.is(EventId)
const isMerchantId = Schema.is(MerchantId)
const isPaymentId = Schema.is(PaymentId)

// API rules §1: a missing sub-resource responds with its owner's not-found code (as crypto settlements
// respond with merchant_not_found): an endpoint belongs to the partner, an event to its payment.
const endpointNotFound = (id: string) => new PartnerNotFound({ message: `No webhook endpoint ${id}.` })
const eventNotFound = (id: string) => new PaymentNotFound({ message: `No event ${id}.` })

// Said with each refusal of a private address to a sandbox key: how to receive events locally.
const sandboxPrivateHint =
  " To receive sandbox events on this machine, forward them with `npm run webhooks -- listen --forward-to <url>`" +
  " (no endpoint needed), or start the service with WEBHOOK_ALLOW_PRIVATE=true (development only)."

/** Partner webhook operations (API rules §6). */
export class Webhooks extends Context.Service<Webhooks, {
  readonly register: (
    caller: WebhookCaller,
    input: RegisterWebhookInput
  ) => Effect.Effect<RegisteredWebhook, ParamsValidation | InvalidParams | MerchantNotFound>
  /** The partner's endpoints (mode of the key), newest first. */
  readonly list: (
    access: PartnerAccess,
    input: { readonly limit?: string | undefined; readonly cursor?: string | undefined }
  ) => Effect.Effect<Page<WebhookEndpoint>, InvalidParams>
  readonly remove: (access: PartnerAccess, id: string) => Effect.Effect<WebhookEndpointId, PartnerNotFound>
  /** Changes an endpoint's event types or status (see {@link UpdateWebhookInput}). */
  readonly update: (access: PartnerAccess, id: string, input: UpdateWebhookInput) => Effect.Effect<WebhookEndpoint, PartnerNotFound | InvalidParams>
  /**
   * Gives an endpoint a new signing secret, shown this once. The old one stops at once: deliveries
   * from now on are signed with the new one (a failed one is retried on the contract's schedule).
   */
  readonly rotateSecret: (access: PartnerAccess, id: string) => Effect.Effect<RegisteredWebhook, PartnerNotFound>
  /** An endpoint's deliveries, newest first. */
  readonly deliveries: (
    access: PartnerAccess,
    id: string,
    input: { readonly limit?: string | undefined; readonly cursor?: string | undefined }
  ) => Effect.Effect<Page<Delivery>, PartnerNotFound | InvalidParams>
  /**
   * Sends an event again (new deliveries, due now) to every active endpoint of the partner that
   * subscribes to it, or only to `endpointId` (which must be the partner's and active).
   */
  readonly redeliver: (
    access: PartnerAccess,
    eventId: string,
    endpointId?: string | undefined
  ) => Effect.Effect<Redelivery, PaymentNotFound | PartnerNotFound>
  /** The partner's events (mode of the key, processed or not; of one payment with `paymentId`), newest first: what its endpoints receive. */
  readonly events: (
    access: PartnerAccess,
    input: PageInput & { readonly paymentId?: string | undefined }
  ) => Effect.Effect<Page<WebhookEvent>, InvalidParams>
  /** One of the partner's events (mode of the key). */
  readonly event: (access: PartnerAccess, eventId: string) => Effect.Effect<WebhookEvent, PaymentNotFound>
  /** The deliveries of a payment's events to any of the partner's endpoints, newest first (none for another partner's payment). */
  readonly paymentDeliveries: (access: PartnerAccess, paymentId: string, input: PageInput) => Effect.Effect<Page<Delivery>, InvalidParams>
  /**
   * Sends a signed `webhook.test` event to one of the partner's endpoints now, through the same
   * SSRF guard as deliveries, and answers what the receiver did. Nothing is stored or retried.
   */
  readonly sendTest: (caller: WebhookCaller, endpointId: string) => Effect.Effect<TestDelivery, PartnerNotFound>
}>()("@paygate/domain/Webhooks") {
  /**
   * The use cases over the ports in context. Test events are signed with WebCrypto's HMAC (they
   * are rare: the deliverers' cached keys are not worth sharing).
   */
  static readonly layer = Layer.effect(
    Webhooks,
    Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointRepository
      const queue = yield* DeliveryQueue
      const merchants = yield* MerchantRepository
      const resolver = yield* HostResolver
      const ids = yield* IdGenerator
      const random = yield* SecureRandom.SecureRandom
      const settings = yield* WebhookSettings
      const transport = yield* WebhookTransport
      const testDelivery = sendTestEvent(sendSigned(transport, settings, yield* Effect.context<Mac.Mac>()), ids, settings)

      const register = Effect.fn("Webhooks.register")(function*(caller: WebhookCaller, input: RegisterWebhookInput) {
        const allowPrivate = settings.allowPrivateAddresses
        const hint = caller.mode === "sandbox" ? sandboxPrivateHint : ""
        const checked = checkWebhookUrl(input.url, { allowHttp: allowPrivate || caller.mode === "sandbox", allowPrivate, privateHint: hint })
        if (Result.isFailure(checked)) return yield* checked.failure
        const events = yield* eventTypes(input.events)
        // A host name is checked on what it resolves to now (and again at every delivery). A name
        // that does not resolve yet is accepted: delivery refuses it if it later points inside.
        const host = checked.success.hostName
        if (host !== undefined && !allowPrivate) {
          const addresses = yield* resolver.resolve(host).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
          const blocked = addresses.map(classifyAddress).find((c) => c !== "public")
          if (blocked !== undefined) {
            return yield* new ParamsValidation({ message: `url must not point to a ${blocked ?? "non-public"} address.${hint}` })
          }
        }
        let merchantId: MerchantId | null = null
        if (Predicate.isNotNullish(input.merchantId)) {
          const merchant = isMerchantId(input.merchantId)
            ? yield* merchants.findById(caller.partnerId, caller.mode, input.merchantId)
            : Option.none()
          if (Option.isNone(merchant)) return yield* yield* missingMerchant(merchants, caller.partnerId, caller.mode, input.merchantId)
          if (merchant.value.deleted) return yield* new MerchantNotFound({ message: `No merchant ${input.merchantId}.` })
          merchantId = merchant.value.id
        }
        const secret = yield* Effect.provideService(generateSecret, SecureRandom.SecureRandom, random)
        const endpoint = new WebhookEndpoint({
          id: yield* ids.make("webhookEndpoint"),
          partnerId: caller.partnerId,
          mode: caller.mode,
          url: input.url,
          events,
          merchantId,
          secret,
          status: "active",
          apiVersion: caller.apiVersion,
          createdAt: yield* Clock.currentTimeMillis
        })
        yield* endpoints.insert(endpoint)
        return { endpoint, secret }
      })

      const list = Effect.fn("Webhooks.list")(function*(
        access: PartnerAccess,
        input: { readonly limit?: string | undefined; readonly cursor?: string | undefined }
      ) {
        const page = yield* pageRequest(input)
        const rows = yield* endpoints.list({ partnerId: access.partnerId, mode: access.mode, after: page.after, limit: page.limit + 1 })
        return toPage(rows, page.limit)
      })

      const findEndpoint = (access: PartnerAccess, id: string) =>
        Effect.gen(function*() {
          const found = isEndpointId(id) ? yield* endpoints.find(access.partnerId, access.mode, id) : Option.none()
          if (Option.isNone(found)) return yield* endpointNotFound(id)
          return found.value
        })

      const remove = Effect.fn("Webhooks.remove")(function*(access: PartnerAccess, id: string) {
        if (!isEndpointId(id) || !(yield* endpoints.remove(access.partnerId, access.mode, id))) return yield* endpointNotFound(id)
        return id
      })

      const update = Effect.fn("Webhooks.update")(function*(access: PartnerAccess, id: string, input: UpdateWebhookInput) {
        const endpoint = yield* findEndpoint(access, id)
        const events = input.events === undefined ? endpoint.events : yield* eventTypes(input.events)
        const changed = new WebhookEndpoint({ ...endpoint, events, status: input.status ?? endpoint.status })
        if (!(yield* endpoints.update(changed))) return yield* endpointNotFound(id)
        return changed
      })

      const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(access: PartnerAccess, id: string) {
        const endpoint = yield* findEndpoint(access, id)
        const secret = yield* Effect.provideService(generateSecret, SecureRandom.SecureRandom, random)
        const changed = new WebhookEndpoint({ ...endpoint, secret })
        if (!(yield* endpoints.update(changed))) return yield* endpointNotFound(id)
        return { endpoint: changed, secret }
      })

      const deliveries = Effect.fn("Webhooks.deliveries")(function*(
        access: PartnerAccess,
        id: string,
        input: { readonly limit?: string | undefined; readonly cursor?: string | undefined }
      ) {
        const endpoint = yield* findEndpoint(access, id)
        const page = yield* pageRequest(input)
        const rows = yield* queue.listForEndpoint({ endpointId: endpoint.id, after: page.after, limit: page.limit + 1 })
        return toPage(rows, page.limit)
      })

      const event = Effect.fn("Webhooks.event")(function*(access: PartnerAccess, eventId: string) {
        const found = isEventId(eventId) ? yield* queue.findEvent(eventId) : Option.none()
        if (Option.isNone(found) || found.value.partnerId !== access.partnerId || eventOwner(found.value).mode !== access.mode) {
          return yield* eventNotFound(eventId)
        }
        return found.value
      })

      const redeliver = Effect.fn("Webhooks.redeliver")(function*(access: PartnerAccess, eventId: string, endpointId?: string) {
        const found = yield* event(access, eventId)
        const targets = endpointId === undefined
          ? (yield* endpoints.active([access])).filter((e) => subscribes(e, found))
          : [yield* findEndpoint(access, endpointId)].filter((e) => e.status === "active")
        const created = yield* queue.redeliver(found, targets.map((e) => e.id))
        return { eventId: found.id, deliveries: created }
      })

      const events = Effect.fn("Webhooks.events")(function*(access: PartnerAccess, input: PageInput & { readonly paymentId?: string | undefined }) {
        const page = yield* pageRequest(input)
        // No payment of ours has a malformed id: nothing to list.
        if (input.paymentId !== undefined && !isPaymentId(input.paymentId)) return { data: [], nextCursor: null }
        const rows = yield* queue.listEvents({
          partnerId: access.partnerId,
          mode: access.mode,
          paymentId: input.paymentId,
          after: page.after,
          limit: page.limit + 1
        })
        const listed = toPage(rows, page.limit)
        return { data: listed.data.map((row) => row.event), nextCursor: listed.nextCursor }
      })

      const paymentDeliveries = Effect.fn("Webhooks.paymentDeliveries")(function*(access: PartnerAccess, paymentId: string, input: PageInput) {
        const page = yield* pageRequest(input)
        if (!isPaymentId(paymentId)) return { data: [], nextCursor: null }
        const rows = yield* queue.listForPayment({ partnerId: access.partnerId, mode: access.mode, paymentId, after: page.after, limit: page.limit + 1 })
        return toPage(rows, page.limit)
      })

      const sendTest = Effect.fn("Webhooks.sendTest")(function*(caller: WebhookCaller, endpointId: string) {
        return yield* testDelivery(yield* findEndpoint(caller, endpointId))
      })

      return Webhooks.of({ register, list, remove, update, rotateSecret, deliveries, redeliver, events, event, paymentDeliveries, sendTest })
    })
  ).pipe(Layer.provide(Mac.layerWebCrypto))
}

/** The secret as the one response that shows it carries it. */
export const revealSecret = (registered: RegisteredWebhook): string => Redacted.value(registered.secret)
