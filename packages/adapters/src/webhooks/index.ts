/**
 * Webhook adapters: endpoints and deliveries on SQL, secrets encrypted at rest, name resolution
 * and the HTTP sender with its SSRF guard, settings from configuration, and the expiry finder.
 *
 * @module
 */
import type { DeliveryQueue, ExpiringPayments, HostResolver, WebhookEndpointRepository, WebhookTransport } from "@paygate/domain"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as DnsHostResolver from "./DnsHostResolver.ts"
import * as HttpWebhookTransport from "./HttpWebhookTransport.ts"
import * as SecretCipher from "./SecretCipher.ts"
import * as SqlDeliveryQueue from "./SqlDeliveryQueue.ts"
import * as SqlExpiringPayments from "./SqlExpiringPayments.ts"
import * as SqlWebhookEndpointRepository from "./SqlWebhookEndpointRepository.ts"
import * as WebhookConfig from "./WebhookConfig.ts"

export { DnsHostResolver, HttpWebhookTransport, SecretCipher, SqlDeliveryQueue, SqlExpiringPayments, SqlWebhookEndpointRepository, WebhookConfig }

/** The webhook ports this package implements. */
export type WebhookPorts = WebhookEndpointRepository | DeliveryQueue | HostResolver | WebhookTransport | ExpiringPayments

/** Every webhook port over the `SqlClient` and `WebhookSecretCipher` in context. */
export const layer: Layer.Layer<WebhookPorts, never, SqlClient.SqlClient | SecretCipher.WebhookSecretCipher> = Layer.mergeAll(
  SqlWebhookEndpointRepository.layer,
  SqlDeliveryQueue.layer,
  SqlExpiringPayments.layer,
  DnsHostResolver.layer,
  HttpWebhookTransport.layer
)

/**
 * What a host wants: every webhook port, the secret cipher and the `WebhookSettings`, from
 * configuration (`WEBHOOK_SECRET_KEY`, `WEBHOOK_ALLOW_PRIVATE`, ...), over the `SqlClient` in
 * context.
 */
export const layerFromConfig = layer.pipe(
  Layer.provideMerge(SecretCipher.layerFromConfig),
  Layer.merge(WebhookConfig.layer)
)
