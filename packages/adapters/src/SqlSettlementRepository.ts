/**
 * `SettlementRepository` on SQL (`crypto_settlements`). `(merchant_id, asset)` is unique
 * (constraint `crypto_settlements_merchant_asset`): `insertAll` writes every row in one
 * transaction and answers `InvalidState`, with nothing written, when any asset already has a
 * destination (or repeats within the batch). `update` rewrites asset and destination if the stored
 * destination is still the one the caller read; moving a destination onto an asset that already has
 * one is a defect (the port has no error for it). Each write inserts its outbox events in the same
 * transaction.
 *
 * @module
 */
import {
  type CryptoSettlement,
  InvalidState,
  type MerchantId,
  type SettlementDestinationEvent,
  type SettlementId,
  SettlementRepository,
  traced
} from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { insertEvents } from "./internal/PaymentWrites.ts"
import { settlementFromRow } from "./internal/SettlementRow.ts"
import { isUniqueViolation } from "./internal/UniqueViolation.ts"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  insertAll: traced("SqlSettlementRepository.insertAll"),
  list: traced("SqlSettlementRepository.list"),
  findById: traced("SqlSettlementRepository.findById"),
  findByAsset: traced("SqlSettlementRepository.findByAsset"),
  update: traced("SqlSettlementRepository.update"),
  remove: traced("SqlSettlementRepository.remove")
}

/** The unique constraint behind `InvalidState`. */
export const merchantAssetConstraint = "crypto_settlements_merchant_asset"

/** Builds the repository over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // Names the asset that clashed: one already stored for its merchant, else one repeated in the batch.
  const clashingAsset = (batch: ReadonlyArray<CryptoSettlement>) =>
    Effect.gen(function*() {
      for (const s of batch) {
        const rows = yield* sql`SELECT 1 AS found FROM crypto_settlements WHERE merchant_id = ${s.merchantId} AND asset = ${s.asset}`
        if (rows.length > 0) return s.asset
      }
      const seen = new Set<string>()
      for (const s of batch) {
        const key = JSON.stringify([s.merchantId, s.asset])
        if (seen.has(key)) return s.asset
        seen.add(key)
      }
      return undefined
    })

  const insertAll = (batch: ReadonlyArray<CryptoSettlement>, events: ReadonlyArray<SettlementDestinationEvent>) => {
    const [first, ...rest] = batch.map((s) =>
      sql`(${s.id}, ${s.merchantId}, ${s.asset}, ${s.destination}, ${s.createdAt}::bigint, ${s.updatedAt}::bigint, ${s.usableFrom}::bigint)`
    )
    if (first === undefined) return Effect.void
    return sql`INSERT INTO crypto_settlements (id, merchant_id, asset, destination, created_at, updated_at, usable_from)
      VALUES ${sql.csv([first, ...rest])}`.pipe(
      Effect.andThen(insertEvents(sql, events)),
      sql.withTransaction,
      Effect.asVoid,
      Effect.catchIf(
        (error) => isUniqueViolation(error, merchantAssetConstraint),
        () =>
          clashingAsset(batch).pipe(
            Effect.flatMap((asset) =>
              Effect.fail(
                new InvalidState({
                  message: asset === undefined
                    ? "An asset already has a settlement destination."
                    : `Asset ${asset} already has a settlement destination.`
                })
              )
            )
          )
      ),
      Effect.catchTag("SqlError", Effect.die),
      spans.insertAll
    )
  }

  const list = (merchantId: MerchantId) =>
    sql`SELECT * FROM crypto_settlements WHERE merchant_id = ${merchantId} ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map(settlementFromRow)),
      Effect.orDie,
      spans.list
    )

  const findById = (merchantId: MerchantId, id: SettlementId) =>
    sql`SELECT * FROM crypto_settlements WHERE merchant_id = ${merchantId} AND id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), settlementFromRow)),
      Effect.orDie,
      spans.findById
    )

  const findByAsset = (merchantId: MerchantId, asset: string) =>
    sql`SELECT * FROM crypto_settlements WHERE merchant_id = ${merchantId} AND asset = ${asset}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), settlementFromRow)),
      Effect.orDie,
      spans.findByAsset
    )

  const update = (s: CryptoSettlement, previousDestination: string, event: SettlementDestinationEvent) =>
    Effect.gen(function*() {
      const rows = yield* sql`UPDATE crypto_settlements SET asset = ${s.asset}, destination = ${s.destination},
          updated_at = ${s.updatedAt}::bigint, usable_from = ${s.usableFrom}::bigint
        WHERE merchant_id = ${s.merchantId} AND id = ${s.id} AND destination = ${previousDestination}
        RETURNING id`
      if (rows.length === 0) return false
      yield* insertEvents(sql, [event])
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.update)

  const remove = (merchantId: MerchantId, id: SettlementId, eventOf: (removed: CryptoSettlement) => SettlementDestinationEvent) =>
    Effect.gen(function*() {
      const rows = yield* sql`DELETE FROM crypto_settlements WHERE merchant_id = ${merchantId} AND id = ${id} RETURNING *`
      const removed = rows[0]
      if (removed === undefined) return false
      yield* insertEvents(sql, [eventOf(settlementFromRow(removed))])
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.remove)

  return SettlementRepository.of({ insertAll, list, findById, findByAsset, update, remove })
})

/** `SettlementRepository` over the `SqlClient` in context. */
export const layer: Layer.Layer<SettlementRepository, never, SqlClient.SqlClient> = Layer.effect(SettlementRepository, make)
