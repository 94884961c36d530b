/**
 * `IdempotencyStore` on SQL (`idempotency_keys`, primary key `(partner_id, route, key)`), with
 * the semantics of contract §9 and of the domain's in-memory store:
 *
 * - `claim` inserts an in-flight row (`status_code` NULL) kept 24 hours from the claim. The
 *   insert is `ON CONFLICT DO UPDATE ... WHERE expires_at <= now`: an expired row is replaced in
 *   the same atomic statement, a live one is left alone. When nothing was written the row is
 *   read: another body → `Conflict different_body`; same body in flight → `Conflict in_flight`;
 *   same body completed → `Replay` of the stored response. Of concurrent claims exactly one wins.
 * - `complete` stores the response of an in-flight key; a 5xx response is never stored (it
 *   releases the key instead, as the in-memory store does).
 * - `release` deletes an in-flight key so a retry can run; completed keys stay.
 *
 * @module
 */
import {
  type IdempotencyClaim,
  type IdempotencyCompletion,
  type IdempotencyScope,
  IdempotencyStore,
  type StoredResponse
} from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toInt, toIntOrNull } from "./internal/Rows.ts"

// Built once: each `Effect.withSpan(name)` call captures a stack trace for its spans.
const spans = {
  claim: Effect.withSpan("SqlIdempotencyStore.claim"),
  release: Effect.withSpan("SqlIdempotencyStore.release"),
  complete: Effect.withSpan("SqlIdempotencyStore.complete")
}

/** How long a key is remembered from its claim (contract §9: 24 hours). */
export const retentionMillis = 24 * 60 * 60 * 1000

const claimed: IdempotencyClaim = { _tag: "Claimed" }
const differentBody: IdempotencyClaim = { _tag: "Conflict", reason: "different_body" }
const inFlight: IdempotencyClaim = { _tag: "Conflict", reason: "in_flight" }
const replay = (response: StoredResponse): IdempotencyClaim => ({ _tag: "Replay", response })

// A claim whose row vanished (released) between the write and the read is tried again.
const maxAttempts = 5

const where = (sql: SqlClient.SqlClient, scope: IdempotencyScope) =>
  sql`partner_id = ${scope.partnerId} AND route = ${scope.route} AND key = ${scope.key}`

/**
 * The statement that stores a claimed key's response; also run inside another write's statement
 * (`SqlPaymentRepository.insert`), so the response commits with what it describes.
 */
export const completeStatement = (sql: SqlClient.SqlClient, completion: IdempotencyCompletion) =>
  sql`UPDATE idempotency_keys SET status_code = ${completion.response.status}, response_body = ${completion.response.body}
    WHERE ${where(sql, completion.scope)} AND status_code IS NULL`

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const claim = (scope: IdempotencyScope, bodyHash: string, nowMillis: number) =>
    Effect.gen(function*() {
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const written = yield* sql`
          INSERT INTO idempotency_keys AS k (partner_id, route, key, body_sha256, status_code, response_body, created_at, expires_at)
          VALUES (${scope.partnerId}, ${scope.route}, ${scope.key}, ${bodyHash}, NULL, NULL, ${nowMillis}::bigint, ${nowMillis + retentionMillis}::bigint)
          ON CONFLICT (partner_id, route, key) DO UPDATE SET
            body_sha256 = EXCLUDED.body_sha256, status_code = NULL, response_body = NULL,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE k.expires_at <= EXCLUDED.created_at
          RETURNING 1 AS claimed`
        if (written.length > 0) return claimed
        const rows = yield* sql<{
          readonly body_sha256: string
          readonly status_code: unknown
          readonly response_body: string | null
          readonly expires_at: unknown
        }>`SELECT body_sha256, status_code, response_body, expires_at FROM idempotency_keys WHERE ${where(sql, scope)}`
        const row = rows[0]
        if (row === undefined || toInt(row.expires_at) <= nowMillis) continue
        if (row.body_sha256 !== bodyHash) return differentBody
        const status = toIntOrNull(row.status_code)
        if (status === null || row.response_body === null) return inFlight
        return replay({ status, body: row.response_body })
      }
      return yield* Effect.die(new Error(`idempotency key ${scope.key} kept changing under us`))
    }).pipe(Effect.orDie, spans.claim)

  const release = (scope: IdempotencyScope) =>
    sql`DELETE FROM idempotency_keys WHERE ${where(sql, scope)} AND status_code IS NULL`.pipe(
      Effect.asVoid,
      Effect.orDie,
      spans.release
    )

  const complete = (scope: IdempotencyScope, response: StoredResponse) =>
    response.status >= 500
      ? release(scope)
      : completeStatement(sql, { scope, response }).pipe(Effect.asVoid, Effect.orDie, spans.complete)

  return IdempotencyStore.of({ claim, complete, release })
})

/** `IdempotencyStore` over the `SqlClient` in context. */
export const layer: Layer.Layer<IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(IdempotencyStore, make)
