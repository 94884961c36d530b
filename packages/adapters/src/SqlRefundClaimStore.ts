/**
 * `RefundClaimStore` on SQL (`refund_claims`, migration 0027). A link's token is never stored:
 * only its SHA-256 hash, which is unique, so a token is found by looking its hash up (no
 * comparison of secrets in code). A claim is one conditional `UPDATE` (unclaimed, not expired) in
 * the transaction that inserts its payouts, with the payment locked as a refund insert locks it.
 *
 * @module
 */
import {
  type ClaimedRefund,
  type ClaimLink,
  type Payout,
  type Refund,
  RefundClaim,
  RefundClaimStore,
  type RefundId,
  RefundRepository,
  traced
} from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { insertPayout, payoutFromRow, payoutSelect } from "./internal/PayoutRow.ts"
import { tokenHash } from "./internal/RefundClaimRow.ts"
import { toInt, toIntOrNull } from "./internal/Rows.ts"

const spans = {
  find: traced("SqlRefundClaimStore.find"),
  claim: traced("SqlRefundClaimStore.claim")
}

const decodeClaim = Schema.decodeUnknownSync(RefundClaim)

/** Builds the store over the `SqlClient` and `RefundRepository` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const refunds = yield* RefundRepository

  const findWhere = (where: "id" | "token", key: string) =>
    Effect.gen(function*() {
      const [row] = yield* sql<Record<string, unknown>>`SELECT c.refund_id, c.expires_at, c.claimed_at, c.recipient, r.payment_id
        FROM refund_claims c JOIN refunds r ON r.id = c.refund_id
        WHERE ${where === "id" ? sql`c.refund_id = ${key}` : sql`c.token_hash = ${tokenHash(key)}`}`
      if (row === undefined) return Option.none<ClaimedRefund>()
      const refund = (yield* refunds.listByPayment(row.payment_id as Refund["paymentId"])).find((r) => r.id === row.refund_id)
      if (refund === undefined) return Option.none<ClaimedRefund>()
      const claim = decodeClaim({
        refundId: row.refund_id,
        expiresAt: toInt(row.expires_at),
        claimedAt: toIntOrNull(row.claimed_at),
        recipient: row.recipient
      })
      return Option.some({ refund, claim })
    }).pipe(Effect.orDie, spans.find)

  const reissue = (id: RefundId, link: ClaimLink) =>
    sql`UPDATE refund_claims SET token_hash = ${tokenHash(link.token)}, expires_at = ${link.expiresAt}::bigint
      WHERE refund_id = ${id} AND claimed_at IS NULL RETURNING refund_id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

  const claim = (token: string, recipient: string, now: number, payouts: (refund: Refund, prior: ReadonlyArray<Payout>) => ReadonlyArray<Payout>) =>
    Effect.gen(function*() {
      const found = yield* findWhere("token", token)
      if (Option.isNone(found)) return Option.none<Refund>()
      const { refund } = found.value
      yield* sql`SELECT id FROM payments WHERE id = ${refund.paymentId} FOR UPDATE`
      const claimed = yield* sql`UPDATE refund_claims SET claimed_at = ${now}::bigint, recipient = ${recipient}
        WHERE refund_id = ${refund.id} AND token_hash = ${tokenHash(token)} AND claimed_at IS NULL AND expires_at > ${now}::bigint
        RETURNING refund_id`
      if (claimed.length === 0) return Option.none<Refund>()
      const prior = (yield* sql`SELECT ${sql.literal(payoutSelect)} FROM payouts WHERE payment_id = ${refund.paymentId}`)
        .map(payoutFromRow)
      for (const payout of payouts(refund, prior)) yield* insertPayout(sql, payout)
      return Option.some(refund)
    }).pipe(sql.withTransaction, Effect.orDie, spans.claim)

  return RefundClaimStore.of({ find: (id) => findWhere("id", id), findByToken: (token) => findWhere("token", token), reissue, claim })
})

/** `RefundClaimStore` over the `SqlClient` and `RefundRepository` in context. */
export const layer: Layer.Layer<RefundClaimStore, never, SqlClient.SqlClient | RefundRepository> = Layer.effect(RefundClaimStore, make)
