import { Effect, Schema } from "effect"

/**
 * A nullable wire field ("X or null", not required in the spec tables).
 *
 * Decoding accepts the key missing or `null` (missing decodes to `null`); the decoded value is
 * always `X | null`. Encoding always writes the key, as `null` when there is no value, so the
 * field is never absent from a response.
 */
export const nullableKey = <S extends Schema.Constraint>(schema: S): Schema.withDecodingDefaultKey<Schema.NullOr<S>> =>
  Schema.NullOr(schema).pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))
