import { codeOfTag, type ContractError, type ErrorCode, statusOf } from "./ErrorCodes.ts"
import { Schema, SchemaGetter } from "effect"

const build = <E extends ContractError>(ErrorClass: new(props: { readonly message: string }) => E, tag: E["_tag"]) => {
  const code = codeOfTag(tag) as ErrorCode
  return Schema.Struct({ code: Schema.Literal(code), message: Schema.String }).pipe(
    Schema.decodeTo(Schema.instanceOf(ErrorClass), {
      decode: SchemaGetter.transform((body) => new ErrorClass({ message: body.message })),
      encode: SchemaGetter.transform((error) => ({ code, message: error.message }))
    }),
    Schema.annotate({ httpApiStatus: statusOf(code), identifier: tag })
  )
}

// One schema per error, however many endpoints list it: OpenAPI then has one component each.
const built = new Map<string, unknown>()

/**
 * The wire form of a contract error: `{"code", "message"}` (API rules §1) with the code's HTTP
 * status. Decoding (typed client) rebuilds the domain error class.
 */
export const wire = <E extends ContractError>(
  ErrorClass: new(props: { readonly message: string }) => E,
  tag: E["_tag"]
): ReturnType<typeof build<E>> => {
  const cached = built.get(tag) ?? build(ErrorClass, tag)
  built.set(tag, cached)
  return cached as ReturnType<typeof build<E>>
}
