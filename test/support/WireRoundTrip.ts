import { Result, Schema } from "effect"

/**
 * Decodes a JSON text with a wire schema and encodes it back to JSON text. For a body already in
 * canonical form (all nullable keys present, spec key order) the result equals the input byte for byte.
 * Throws on a decode failure.
 */
export const reencodeJson = <T, E>(schema: Schema.Codec<T, E>, text: string): string =>
  JSON.stringify(Schema.encodeSync(schema)(Schema.decodeUnknownSync(schema)(JSON.parse(text))))

/** Whether a wire schema rejects an input structurally (which the API reports as `invalid_params`). */
export const rejectsStructurally = <T, E>(schema: Schema.Codec<T, E>, input: unknown): boolean =>
  Result.isFailure(Schema.decodeUnknownResult(schema)(input))
