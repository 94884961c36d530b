import { type ApiError, codeOfTag, type ErrorCode, statusOf } from "@paygate/domain"
import { Schema, SchemaGetter } from "effect"

/** An error class of the domain (any of its 35 contract errors). */
export type ApiErrorClass<E extends ApiError = ApiError> = Schema.Codec<E, unknown> & (new(props: { readonly message: string }) => E) & {
  readonly identifier: string
}

/**
 * The wire form of a contract error: `{"code", "message"}` (contract §2) with the code's HTTP
 * status. Decoding (typed client) rebuilds the domain error class.
 */
export const wire = <E extends ApiError>(ErrorClass: new(props: { readonly message: string }) => E, tag: E["_tag"]) => {
  const code = codeOfTag(tag) as ErrorCode
  return Schema.Struct({ code: Schema.Literal(code), message: Schema.String }).pipe(
    Schema.decodeTo(Schema.instanceOf(ErrorClass), {
      decode: SchemaGetter.transform((body) => new ErrorClass({ message: body.message })),
      encode: SchemaGetter.transform((error) => ({ code, message: error.message }))
    }),
    Schema.annotate({ httpApiStatus: statusOf(code), identifier: tag })
  )
}
