/**
 * `ExpiringPayments` on SQL: payments still `requires_action` whose `expires_at` has passed,
 * over the index `payments_expiry (status, expires_at)`.
 *
 * @module
 */
import { ExpiringPayments, type PaymentId, traced } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  due: traced("SqlExpiringPayments.due")
}

/** Builds the finder over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // `expires_at` is stored in milliseconds; a payment expires when now (s) ≥ expiresAt (s).
  const due = (nowSeconds: number, limit: number) =>
    sql<{ readonly id: PaymentId }>`SELECT id FROM payments
      WHERE status = 'requires_action' AND expires_at <= ${nowSeconds * 1000}::bigint
      ORDER BY expires_at LIMIT ${limit}`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
      Effect.orDie,
      spans.due
    )
  return ExpiringPayments.of({ due })
})

/** `ExpiringPayments` over the `SqlClient` in context. */
export const layer: Layer.Layer<ExpiringPayments, never, SqlClient.SqlClient> = Layer.effect(ExpiringPayments, make)
