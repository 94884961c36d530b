/**
 * `PaymentLinkRepository` on SQL (`payment_links`, `payment_link_visits`, `payments.link_id`).
 * A visit's payment is opened in one transaction that locks the link's row: visits of one link
 * are counted and written one after another, so no two can both take its last allowed payment.
 *
 * @module
 */
import {
  type LinkTotals,
  type LinkVisit,
  PaymentLink,
  type PaymentLinkId,
  type PaymentLinkQuery,
  PaymentLinkRepository,
  type VisitOutcome
} from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import * as GroupCommit from "./internal/GroupCommit.ts"
import { fromJsonColumn, toInt } from "./internal/Rows.ts"

const LinkJson = Schema.toCodecJson(PaymentLink)
const encodeLink = Schema.encodeSync(LinkJson)
// Rows are our own, written from valid links only.
const decodeLink = Schema.decodeUnknownSync(LinkJson, { disableChecks: true })
const linkFromRow = (row: Record<string, unknown>) => decodeLink(fromJsonColumn(row.body))

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insertPayment = GroupCommit.make(sql)

  const insert = (link: PaymentLink) =>
    sql`INSERT INTO payment_links (id, partner_id, mode, merchant_id, active, body, created_at)
      VALUES (${link.id}, ${link.partnerId}, ${link.mode}, ${link.merchantId}, ${link.active},
        ${JSON.stringify(encodeLink(link))}::jsonb, ${link.createdAt})`.pipe(Effect.asVoid, Effect.orDie)

  const findById = (id: PaymentLinkId) =>
    sql`SELECT body FROM payment_links WHERE id = ${id}`.pipe(
      Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(linkFromRow(rows[0]!))),
      Effect.orDie
    )

  const list = (query: PaymentLinkQuery) => {
    const where: Array<Fragment> = [sql`partner_id = ${query.partnerId}`, sql`mode = ${query.mode}`]
    if (query.merchantId !== undefined) where.push(sql`merchant_id = ${query.merchantId}`)
    if (query.after !== null) {
      where.push(sql`(created_at, id) < (${query.after.createdAt}::bigint, ${query.after.id}::text COLLATE "C")`)
    }
    return sql`SELECT body FROM payment_links WHERE ${sql.and(where)} ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(
      Effect.map((rows) => rows.map(linkFromRow)),
      Effect.orDie
    )
  }

  const setActive = (id: PaymentLinkId, active: boolean, updatedAt: number) =>
    sql`UPDATE payment_links SET active = ${active},
        body = body || jsonb_build_object('active', ${active}::boolean, 'updatedAt', ${updatedAt}::bigint)
      WHERE id = ${id} RETURNING body`.pipe(
      Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(linkFromRow(rows[0]!))),
      Effect.orDie
    )

  const totals = (ids: ReadonlyArray<PaymentLinkId>) =>
    ids.length === 0 ? Effect.succeed(new Map<PaymentLinkId, LinkTotals>()) : sql`SELECT link_id,
        count(*) AS payments,
        count(*) FILTER (WHERE status = 'succeeded') AS succeeded,
        coalesce(sum(value) FILTER (WHERE status = 'succeeded'), 0)::text AS collected
      FROM payments WHERE link_id = ANY(${ids}::text[]) GROUP BY link_id`.pipe(
      Effect.map((rows) =>
        new Map(rows.map((row) => [row.link_id as PaymentLinkId, {
          payments: toInt(row.payments),
          succeeded: toInt(row.succeeded),
          collected: BigInt(row.collected as string)
        }]))
      ),
      Effect.orDie
    )

  // Paid, being paid, or still payable at `now` (ms): what holds one of a link's allowed payments.
  const holds = (now: number) =>
    sql`(p.status IN ('processing', 'succeeded') OR (p.status = 'requires_action' AND p.expires_at > ${now}))`

  const openVisit = (visit: LinkVisit, now: number): Effect.Effect<VisitOutcome> =>
    Effect.gen(function*() {
      const locked = yield* sql`SELECT active FROM payment_links WHERE id = ${visit.linkId} FOR UPDATE`
      const earlier = yield* sql`SELECT p.id FROM payment_link_visits v JOIN payments p ON p.id = v.payment_id
        WHERE v.link_id = ${visit.linkId} AND v.token = ${visit.token} AND ${holds(now)}`
      if (earlier.length > 0) return { _tag: "Existing", paymentId: earlier[0]!.id as typeof visit.payment.id } as const
      if (locked.length === 0 || locked[0]!.active !== true) return { _tag: "Inactive" } as const
      if (visit.capacity !== null) {
        const [taken] = yield* sql`SELECT count(*) AS n FROM payments p WHERE p.link_id = ${visit.linkId} AND ${holds(now)}`
        if (toInt(taken!.n) >= visit.capacity) return { _tag: "Full" } as const
      }
      yield* insertPayment({ payment: visit.payment, events: visit.events, completion: undefined })
      yield* sql`INSERT INTO payment_link_visits (link_id, token, payment_id) VALUES (${visit.linkId}, ${visit.token}, ${visit.payment.id})
        ON CONFLICT (link_id, token) DO UPDATE SET payment_id = EXCLUDED.payment_id`
      return { _tag: "Created", paymentId: visit.payment.id } as const
    }).pipe(sql.withTransaction, Effect.orDie)

  return PaymentLinkRepository.of({ insert, findById, list, setActive, totals, openVisit })
})

/** `PaymentLinkRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<PaymentLinkRepository, never, SqlClient.SqlClient> = Layer.effect(PaymentLinkRepository, make)
