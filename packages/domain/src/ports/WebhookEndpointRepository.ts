import { Context, type Effect, type Option } from "effect"
import type { PartnerId, WebhookEndpointId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { Mode } from "../payment/Payment.ts"
import type { WebhookEndpoint } from "../webhooks/WebhookEndpoint.ts"

/** Whose endpoints: a partner's, in one mode. */
export interface EndpointOwner {
  readonly partnerId: PartnerId
  readonly mode: Mode
}

/**
 * Webhook endpoint persistence. Secrets are stored encrypted (the adapter's business); the
 * domain sees them as `Redacted`. Deleted endpoints are gone for every method. Infrastructure
 * failures are defects.
 */
export class WebhookEndpointRepository extends Context.Service<WebhookEndpointRepository, {
  readonly insert: (endpoint: WebhookEndpoint) => Effect.Effect<void>
  /** The partner's endpoint in `mode` with this id, if any (disabled ones included). */
  readonly find: (partnerId: PartnerId, mode: Mode, id: WebhookEndpointId) => Effect.Effect<Option.Option<WebhookEndpoint>>
  /** The partner's endpoints in `mode`, oldest first, after the cursor. */
  readonly list: (query: {
    readonly partnerId: PartnerId
    readonly mode: Mode
    readonly after: Cursor | null
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /**
   * The active endpoints of these owners, oldest first (what new events fan out to). One read for
   * a batch of events of many partners.
   */
  readonly active: (owners: ReadonlyArray<EndpointOwner>) => Effect.Effect<ReadonlyArray<WebhookEndpoint>>
  /**
   * Stores an endpoint's new events, status and secret. An endpoint turned `disabled` has its
   * pending deliveries end `failed` in the same transaction. Answers `false` when there was none
   * (deleted meanwhile).
   */
  readonly update: (endpoint: WebhookEndpoint) => Effect.Effect<boolean>
  /**
   * Deletes the endpoint; its pending deliveries end `failed` in the same transaction. Answers
   * `false` when there was none.
   */
  readonly remove: (partnerId: PartnerId, mode: Mode, id: WebhookEndpointId) => Effect.Effect<boolean>
}>()("@paygate/domain/WebhookEndpointRepository") {}
