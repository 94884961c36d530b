/**
 * `QuoteStore` on SQL (`quotes`): every quote handed out as an option, the latest per
 * (payment, account, asset) found through the `quotes_latest` index. Claims are stored as the
 * domain's JSON encoding and decoded on read. Database failures are defects (the port's contract).
 *
 * @module
 */
import { OptionClaims, QuoteStore, traced } from "@paygate/domain"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  latest: traced("SqlQuoteStore.latest"),
  newest: traced("SqlQuoteStore.newest"),
  history: traced("SqlQuoteStore.history"),
  save: traced("SqlQuoteStore.save"),
  prune: traced("SqlQuoteStore.prune"),
  byNonce: traced("SqlQuoteStore.byNonce")
}

const ClaimsJson = Schema.fromJsonString(OptionClaims)
const encodeClaims = Schema.encodeSync(ClaimsJson)
const decodeClaims = Schema.decodeUnknownSync(OptionClaims)
const decodeClaimsText = Schema.decodeUnknownSync(ClaimsJson)

interface QuoteRow {
  readonly option_id: string
  readonly claims: unknown
}

// PGlite and node-postgres both parse jsonb; a driver answering text is handled too.
const claimsFromRow = (claims: unknown) => (typeof claims === "string" ? decodeClaimsText(claims) : decodeClaims(claims))

const quoteOf = (row: QuoteRow) => ({ optionId: row.option_id, claims: claimsFromRow(row.claims) })
const firstQuote = (rows: ReadonlyArray<QuoteRow>) => Option.map(Option.fromNullishOr(rows[0]), quoteOf)

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const latest = (paymentId: string, account: string, asset: string) =>
    sql<QuoteRow>`SELECT option_id, claims FROM quotes
      WHERE payment_id = ${paymentId} AND account = ${account} AND asset = ${asset}
      ORDER BY created_at DESC, seq DESC LIMIT 1`.pipe(
      Effect.map(firstQuote),
      Effect.orDie,
      spans.latest
    )

  const newest = (paymentId: string, asset: string) =>
    sql<QuoteRow>`SELECT option_id, claims FROM quotes
      WHERE payment_id = ${paymentId} AND asset = ${asset}
      ORDER BY created_at DESC, seq DESC LIMIT 1`.pipe(
      Effect.map(firstQuote),
      Effect.orDie,
      spans.newest
    )

  const history = (paymentId: string, account: string, asset: string) =>
    sql<QuoteRow>`SELECT option_id, claims FROM quotes
      WHERE payment_id = ${paymentId} AND account = ${account} AND asset = ${asset}
      ORDER BY created_at, seq`.pipe(
      Effect.map((rows) => rows.map(quoteOf)),
      Effect.orDie,
      spans.history
    )

  const save = (quote: { readonly optionId: string; readonly claims: OptionClaims }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const { claims } = quote
      yield* sql`INSERT INTO quotes (option_id, payment_id, account, asset, claims, created_at)
        VALUES (${quote.optionId}, ${claims.paymentId}, ${claims.account}, ${claims.asset}, ${encodeClaims(claims)}::jsonb, ${now})
        ON CONFLICT (option_id) DO NOTHING`
    }).pipe(Effect.orDie, spans.save)

  const prune = (paymentId: string, expiredBefore: number) =>
    Effect.gen(function*() {
      yield* sql`DELETE FROM quotes q
        WHERE q.payment_id = ${paymentId}
          AND q.claims ->> 'kind' <> 'deposit'
          AND (q.claims ->> 'expiresAt')::bigint < ${expiredBefore}
          AND EXISTS (SELECT 1 FROM quotes later
            WHERE later.payment_id = q.payment_id AND later.account = q.account AND later.asset = q.asset
              AND (later.created_at, later.seq) > (q.created_at, q.seq))`
      const rows = yield* sql<{ readonly held: number | string }>`SELECT count(*) AS held FROM quotes WHERE payment_id = ${paymentId}`
      return Number(rows[0]?.held ?? 0)
    }).pipe(Effect.orDie, spans.prune)

  const byNonce = (nonce: string) =>
    sql<QuoteRow>`SELECT option_id, claims FROM quotes WHERE claims ->> 'nonce' = ${nonce} ORDER BY seq LIMIT 1`.pipe(
      Effect.map(firstQuote),
      Effect.orDie,
      spans.byNonce
    )

  return QuoteStore.of({ latest, newest, history, save, prune, byNonce })
})

/** The quote store over the `SqlClient` in context. */
export const layer: Layer.Layer<QuoteStore, never, SqlClient.SqlClient> = Layer.effect(QuoteStore, make)
