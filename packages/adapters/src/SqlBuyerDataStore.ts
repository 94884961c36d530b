/**
 * `BuyerDataStore` on SQL (`buyer_data`, migration 0005). The data is JSON encrypted with the
 * `AtRestCipher` (the webhook secrets' key), bound to its payment and account: a row copied onto
 * another payment or account does not decrypt. Nothing of the data is logged; a row that no longer
 * decrypts (key lost or changed) is a defect that names neither the data nor the account.
 *
 * @module
 */
import { type BuyerData, BuyerDataStore, traced } from "@paygate/domain"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { AtRestCipher } from "./webhooks/SecretCipher.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  providedBy: traced("SqlBuyerDataStore.providedBy"),
  find: traced("SqlBuyerDataStore.find"),
  save: traced("SqlBuyerDataStore.save")
}

// The cipher's context: what the ciphertext is bound to.
const contextOf = (paymentId: string, account: string) => `buyer_data ${paymentId} ${account}`

/** Builds the store over the `SqlClient` and `AtRestCipher` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const cipher = yield* AtRestCipher

  const providedBy = (paymentId: string) =>
    sql<{ readonly account: string }>`SELECT account FROM buyer_data WHERE payment_id = ${paymentId}`.pipe(
      Effect.map((rows): ReadonlySet<string> => new Set(rows.map((row) => row.account))),
      Effect.orDie,
      spans.providedBy
    )

  const find = (paymentId: string, account: string) =>
    Effect.gen(function*() {
      const rows = yield* sql<{ readonly data: string }>`SELECT data FROM buyer_data
        WHERE payment_id = ${paymentId} AND account = ${account}`.pipe(Effect.orDie)
      const row = rows[0]
      if (row === undefined) return Option.none()
      const plain = yield* cipher.decrypt(contextOf(paymentId, account), row.data).pipe(
        // The cipher's message would name the account.
        Effect.mapError(() => new Error(`Buyer data of payment ${paymentId} cannot be decrypted with this key.`)),
        Effect.orDie
      )
      return Option.some(Redacted.make(JSON.parse(Redacted.value(plain)) as BuyerData))
    }).pipe(spans.find)

  const save = (paymentId: string, account: string, data: Redacted.Redacted<BuyerData>) =>
    Effect.gen(function*() {
      const sealed = yield* cipher.encrypt(contextOf(paymentId, account), Redacted.make(JSON.stringify(Redacted.value(data))))
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO buyer_data (payment_id, account, data, created_at, updated_at)
        VALUES (${paymentId}, ${account}, ${sealed}, ${now}::bigint, ${now}::bigint)
        ON CONFLICT (payment_id, account) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`
    }).pipe(Effect.orDie, spans.save)

  return BuyerDataStore.of({ providedBy, find, save })
})

/** `BuyerDataStore` over the `SqlClient` and `AtRestCipher` in context. */
export const layer: Layer.Layer<BuyerDataStore, never, SqlClient.SqlClient | AtRestCipher> = Layer.effect(BuyerDataStore, make)
