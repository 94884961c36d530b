/**
 * `WebhookEndpointRepository` on SQL (`webhook_endpoints`). The signing secret is stored only
 * encrypted (`WebhookSecretCipher`); a row whose secret no longer decrypts (key lost or changed)
 * is a defect. Deleting keeps the row (`deleted_at`) and ends the endpoint's pending deliveries
 * in the same transaction.
 *
 * @module
 */
import {
  type Cursor,
  type EndpointOwner,
  type Mode,
  type PartnerId,
  type WebhookEndpoint,
  type WebhookEndpointId,
  WebhookEndpointRepository,
  traced
} from "@paygate/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { endpointFromRow, endpointSelect } from "./EndpointRows.ts"
import { WebhookSecretCipher } from "./SecretCipher.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insert: traced("SqlWebhookEndpointRepository.insert"),
  find: traced("SqlWebhookEndpointRepository.find"),
  list: traced("SqlWebhookEndpointRepository.list"),
  active: traced("SqlWebhookEndpointRepository.active"),
  update: traced("SqlWebhookEndpointRepository.update"),
  remove: traced("SqlWebhookEndpointRepository.remove")
}

/** Builds the repository over the `SqlClient` and cipher in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* WebhookSecretCipher
  const select = sql.literal(endpointSelect)
  const fromRow = endpointFromRow(cipher)
  const fromRows = (rows: ReadonlyArray<Record<string, unknown>>) => Effect.forEach(rows, fromRow)

  const insert = (e: WebhookEndpoint) =>
    Effect.gen(function*() {
      const ciphertext = yield* cipher.encrypt(e.id, e.secret)
      yield* sql`INSERT INTO webhook_endpoints (id, partner_id, mode, url, events, merchant_id, secret_ciphertext, status,
          api_version, created_at, updated_at)
        VALUES (${e.id}, ${e.partnerId}, ${e.mode}, ${e.url}, ${JSON.stringify(e.events)}::jsonb, ${e.merchantId},
          ${ciphertext}, ${e.status}, ${e.apiVersion}, ${e.createdAt}::bigint, ${e.createdAt}::bigint)`
    }).pipe(Effect.orDie, spans.insert)

  const find = (partnerId: PartnerId, mode: Mode, id: WebhookEndpointId) =>
    sql`SELECT ${select} FROM webhook_endpoints
      WHERE id = ${id} AND partner_id = ${partnerId} AND mode = ${mode} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(fromRows),
      Effect.map((rows) => Option.fromNullishOr(rows[0])),
      Effect.orDie,
      spans.find
    )

  const list = (query: { readonly partnerId: PartnerId; readonly mode: Mode; readonly after: Cursor | null; readonly limit: number }) =>
    sql`SELECT ${select} FROM webhook_endpoints
      WHERE partner_id = ${query.partnerId} AND mode = ${query.mode} AND deleted_at IS NULL
        ${query.after === null ? sql`` : sql`AND (created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`}
      ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.flatMap(fromRows),
      Effect.orDie,
      spans.list
    )

  // The owners go as one JSON parameter: one statement whatever their number, nothing spliced in.
  const active = (owners: ReadonlyArray<EndpointOwner>) =>
    owners.length === 0 ? Effect.succeed([]) : sql`SELECT ${select} FROM webhook_endpoints
      WHERE (partner_id, mode) IN (SELECT o.partner_id, o.mode
          FROM jsonb_to_recordset(${JSON.stringify(owners.map((o) => ({ partner_id: o.partnerId, mode: o.mode })))}::jsonb) AS o (partner_id text, mode text))
        AND status = 'active' AND deleted_at IS NULL
      ORDER BY created_at, id`.pipe(
      Effect.flatMap(fromRows),
      Effect.orDie,
      spans.active
    )

  const update = (e: WebhookEndpoint) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const ciphertext = yield* cipher.encrypt(e.id, e.secret)
      const rows = yield* sql`UPDATE webhook_endpoints SET events = ${JSON.stringify(e.events)}::jsonb, status = ${e.status},
          secret_ciphertext = ${ciphertext}, updated_at = ${now}::bigint
        WHERE id = ${e.id} AND partner_id = ${e.partnerId} AND mode = ${e.mode} AND deleted_at IS NULL RETURNING id`
      if (rows.length === 0) return false
      if (e.status === "disabled") yield* endPending(e.id, "the endpoint was disabled", now)
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.update)

  // Pending deliveries of an endpoint that no longer receives: failed (each can be redelivered).
  const endPending = (id: WebhookEndpointId, reason: string, now: number) =>
    sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_until = NULL,
        last_error = ${reason}, updated_at = ${now}::bigint
      WHERE endpoint_id = ${id} AND status = 'pending'`

  const remove = (partnerId: PartnerId, mode: Mode, id: WebhookEndpointId) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql`UPDATE webhook_endpoints SET deleted_at = ${now}::bigint, updated_at = ${now}::bigint
        WHERE id = ${id} AND partner_id = ${partnerId} AND mode = ${mode} AND deleted_at IS NULL RETURNING id`
      if (rows.length === 0) return false
      yield* endPending(id, "the endpoint was deleted", now)
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.remove)

  return WebhookEndpointRepository.of({ insert, find, list, active, update, remove })
})

/** `WebhookEndpointRepository` over the `SqlClient` and `WebhookSecretCipher` in context. */
export const layer: Layer.Layer<WebhookEndpointRepository, never, SqlClient.SqlClient | WebhookSecretCipher> = Layer.effect(
  WebhookEndpointRepository,
  make
)
