/**
 * `ExportSource` on SQL: one page of payments (`payments_listing` order) or payouts at a time, by
 * keyset on (created_at, id) so that an export of any size holds one page in memory. The gas the
 * service paid comes from `gas_spent` (migration 0021). Database failures are defects.
 *
 * @module
 */
import { type ExportPageQuery, type ExportRecord, ExportSource, traced } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { toInt } from "./internal/Rows.ts"

const spans = { page: traced("SqlExportSource.page") }

interface Row {
  readonly id: string
  readonly payment_id: string
  readonly merchant_id: string
  readonly reference_id: string
  readonly status: string
  readonly currency: string
  readonly fiat_value: string
  readonly asset: string | null
  readonly token_value: string | null
  readonly payment_token_value: string | null
  readonly tx_hash: string | null
  readonly gas_paid: string | null
  readonly gas_asset: string | null
  readonly created_at: unknown
  readonly updated_at: unknown
}

const big = (text: string | null) => (text === null ? null : BigInt(text))

/** Builds the port over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const page = (q: ExportPageQuery) => {
    const merchant = q.merchantId === undefined ? sql`TRUE` : sql`p.merchant_id = ${q.merchantId}`
    const after = q.after === null
      ? sql`TRUE`
      : q.dataset === "payments"
      ? sql`(p.created_at, p.id) > (${q.after.createdAt}::bigint, ${q.after.id}::text COLLATE "C")`
      : sql`(o.created_at, (o.payment_id || ':' || o.kind || ':' || o.leg) COLLATE "C") > (${q.after.createdAt}::bigint, ${q.after.id}::text COLLATE "C")`
    const query = q.dataset === "payments"
      ? sql<Row>`SELECT p.id, p.id AS payment_id, p.merchant_id, p.reference_id, p.status, p.currency, p.value::text AS fiat_value,
          -- A held payment paid the merchant what was captured of it (the rest went back to the buyer).
          p.commitment::jsonb ->> 'asset' AS asset, CASE WHEN p.commitment IS NULL THEN NULL ELSE coalesce(p.hold ->> 'captured', p.commitment::jsonb ->> 'tokenAmount') END AS token_value,
          p.commitment::jsonb ->> 'tokenAmount' AS payment_token_value, p.commitment::jsonb ->> 'txHash' AS tx_hash,
          g.paid::text AS gas_paid, g.asset AS gas_asset, p.created_at, p.updated_at
        FROM payments p
        LEFT JOIN LATERAL (SELECT sum(amount) AS paid, min(asset) AS asset FROM gas_spent
          WHERE operation = 'payment' AND subject_id = p.id) g ON TRUE
        WHERE p.partner_id = ${q.partnerId} AND p.mode = ${q.mode} AND ${merchant}
          AND p.created_at >= ${q.fromMillis}::bigint AND p.created_at < ${q.toMillis}::bigint AND ${after}
        ORDER BY p.created_at, p.id LIMIT ${q.limit}`
      : sql<Row>`SELECT (o.payment_id || ':' || o.kind || ':' || o.leg) COLLATE "C" AS id, o.payment_id, p.merchant_id, p.reference_id, o.status,
          p.currency, p.value::text AS fiat_value, o.asset, o.value::text AS token_value,
          p.commitment::jsonb ->> 'tokenAmount' AS payment_token_value, o.tx_hash,
          g.paid::text AS gas_paid, g.asset AS gas_asset, o.created_at, o.updated_at
        FROM payouts o JOIN payments p ON p.id = o.payment_id
        LEFT JOIN LATERAL (SELECT sum(amount) AS paid, min(asset) AS asset FROM gas_spent
          WHERE operation = o.kind AND subject_id = o.payment_id || ':' || o.kind || ':' || o.leg) g ON TRUE
        WHERE o.kind = ${q.dataset === "settlements" ? "settlement" : "refund"}
          AND p.partner_id = ${q.partnerId} AND p.mode = ${q.mode} AND ${merchant}
          AND o.created_at >= ${q.fromMillis}::bigint AND o.created_at < ${q.toMillis}::bigint AND ${after}
        ORDER BY o.created_at, 1 LIMIT ${q.limit}`
    const type = q.dataset === "payments" ? "payment" as const : q.dataset === "settlements" ? "settlement" as const : "refund" as const
    return query.pipe(
      Effect.map((rows) =>
        rows.map((r): ExportRecord => ({
          type,
          id: r.id,
          paymentId: r.payment_id,
          merchantId: r.merchant_id,
          referenceId: r.reference_id,
          status: r.status,
          currency: r.currency,
          fiatValue: BigInt(r.fiat_value),
          asset: r.asset,
          tokenValue: big(r.token_value),
          paymentTokenValue: big(r.payment_token_value),
          txHash: r.tx_hash,
          gasPaid: big(r.gas_paid) ?? 0n,
          gasAsset: r.gas_asset,
          createdAt: toInt(r.created_at),
          updatedAt: toInt(r.updated_at)
        }))
      ),
      Effect.orDie,
      spans.page
    )
  }

  return ExportSource.of({ page })
})

/** `ExportSource` over the `SqlClient` in context. */
export const layer: Layer.Layer<ExportSource, never, SqlClient.SqlClient> = Layer.effect(ExportSource, make)
