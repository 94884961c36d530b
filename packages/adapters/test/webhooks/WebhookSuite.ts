/**
 * Webhook adapter tests: every block on its own fresh, migrated database (PGlite, and
 * PostgreSQL when `TEST_DATABASE_URL` is set) with the SQL ports, the webhook adapters under a
 * fixed secret key, and endpoint fixtures.
 */
import { WebhookAdapters } from "@paygate/adapters"
import {
  IdGenerator,
  type Merchant,
  type PaymentEventType,
  WebhookEndpoint,
  WebhookEndpointRepository
} from "@paygate/domain"
import { layer, type Vitest } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted } from "effect"
import { adapterLayer, type AdapterServices } from "../support/AdapterSuite.ts"
import { type DatabaseUnderTest, databasesUnderTest } from "../support/TestDatabase.ts"

/** The fixed key of these suites. */
export const testKey = new Uint8Array(32).fill(7)

/** What every webhook adapter test can use. */
export type WebhookServices = AdapterServices | WebhookAdapters.WebhookPorts | WebhookAdapters.SecretCipher.WebhookSecretCipher

/** Registers `tests` under `title [database]` for every database under test. */
export const webhookSuite = (
  title: string,
  tests: (it: Vitest.MethodsNonLive<WebhookServices>, db: DatabaseUnderTest) => void
): void => {
  for (const db of databasesUnderTest) {
    const services = WebhookAdapters.layer.pipe(
      Layer.provideMerge(WebhookAdapters.SecretCipher.layerKey(testKey)),
      Layer.provideMerge(adapterLayer(db))
    )
    layer(services, { excludeTestServices: true, timeout: "120 seconds" })(`${title} [${db.name}]`, (it) => tests(it, db))
  }
}

/** A new active endpoint of `merchant`'s partner and mode, stored. */
export const newEndpoint = (
  merchant: Merchant,
  options: { readonly events?: ReadonlyArray<PaymentEventType>; readonly merchantScoped?: boolean; readonly url?: string } = {}
): Effect.Effect<WebhookEndpoint, never, IdGenerator | WebhookEndpointRepository> =>
  Effect.gen(function*() {
    const endpoint = new WebhookEndpoint({
      id: yield* (yield* IdGenerator).make("webhookEndpoint"),
      partnerId: merchant.partnerId,
      mode: merchant.mode,
      url: options.url ?? "https://hooks.example/receive",
      events: options.events ?? [],
      merchantId: options.merchantScoped === true ? merchant.id : null,
      secret: Redacted.make("whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC0xMjM="),
      status: "active",
      apiVersion: "2026-02-18",
      createdAt: yield* Clock.currentTimeMillis
    })
    yield* (yield* WebhookEndpointRepository).insert(endpoint)
    return endpoint
  })
