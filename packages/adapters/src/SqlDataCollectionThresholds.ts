/**
 * Partners' data collection thresholds on SQL (`partners.data_collection_threshold`, migration
 * 0005): the domain's `DataCollectionThresholds`, and {@link setThreshold} for the operator CLI.
 *
 * @module
 */
import { DataCollectionThresholds, isDataCollectionThreshold, type PartnerId, traced } from "@paygate/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"

// Built once; a span only when tracing is on (`traced`: a disabled span still costs a stack trace and context copies per call).
const spans = {
  thresholdOf: traced("SqlDataCollectionThresholds.thresholdOf")
}

/** The threshold is not a plain unsigned decimal. */
export class InvalidThreshold extends Schema.TaggedError<InvalidThreshold>()("InvalidThreshold", {
  message: Schema.String
}) {}

// `numeric` comes back as text (or a number from some drivers); either way its decimal form.
const thresholdText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

/** Builds the port over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const thresholdOf = (partnerId: PartnerId) =>
    sql`SELECT data_collection_threshold::text AS threshold FROM partners WHERE id = ${partnerId}`.pipe(
      Effect.map((rows) => Option.fromNullishOr(thresholdText(rows[0]?.threshold))),
      Effect.orDie,
      spans.thresholdOf
    )
  return DataCollectionThresholds.of({ thresholdOf })
})

/** `DataCollectionThresholds` over the `SqlClient` in context. */
export const layer: Layer.Layer<DataCollectionThresholds, never, SqlClient.SqlClient> = Layer.effect(DataCollectionThresholds, make)

/**
 * Sets a partner's threshold (a plain decimal in major units of the payment's currency), or with
 * `null` returns it to the contract's default; answers whether the partner exists.
 */
export const setThreshold = (
  partnerId: string,
  threshold: string | null
): Effect.Effect<boolean, InvalidThreshold, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (threshold !== null && !isDataCollectionThreshold(threshold)) {
      return yield* new InvalidThreshold({ message: `${threshold} is not a plain unsigned decimal such as 1000.00.` })
    }
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`UPDATE partners SET data_collection_threshold = ${threshold}::numeric WHERE id = ${partnerId} RETURNING id`
      .pipe(Effect.orDie)
    return rows.length > 0
  })
