/**
 * CAIP-2 blockchain ids, e.g. `eip155:1` or `bip122:000000000019d6689c085ae165831e93`.
 *
 * @see https://chainagnostic.org/CAIPs/caip-2
 */
import { Effect, Result, Schema } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"

const NAMESPACE = /^[-a-z0-9]{3,8}$/
const REFERENCE = /^[-_a-zA-Z0-9]{1,32}$/
// EIP-155 chain ids are positive integers; without leading zeros "01" and "1" cannot name one chain twice.
const EIP155_REFERENCE = /^[1-9][0-9]*$/

/** A CAIP-2 chain id split into its parts, e.g. `{ namespace: "eip155", reference: "1" }`. */
export interface ChainIdParts {
  readonly namespace: string
  readonly reference: string
}

/**
 * Checks a CAIP-2 chain id: `namespace:reference`. Any namespace is accepted; `eip155` references
 * must also be decimal chain ids without leading zeros. The failure is a phrase for error messages.
 */
export const validateChainId = (input: string): Result.Result<ChainIdParts, string> => {
  const parts = input.split(":")
  const [namespace, reference] = parts
  if (parts.length !== 2 || namespace === undefined || reference === undefined) {
    return Result.fail('expected the form "namespace:reference"')
  }
  if (!NAMESPACE.test(namespace)) {
    return Result.fail('the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"')
  }
  if (!REFERENCE.test(reference)) {
    return Result.fail('the chain reference must be 1 to 32 characters of a-z, A-Z, 0-9, "-" or "_"')
  }
  if (namespace === "eip155" && !EIP155_REFERENCE.test(reference)) {
    return Result.fail("the eip155 chain reference must be a positive decimal chain id without leading zeros")
  }
  return Result.succeed({ namespace, reference })
}

/**
 * A valid CAIP-2 chain id string. Decoding only validates: chain ids have a single spelling.
 *
 * @example
 * Schema.decodeUnknownSync(ChainId)("eip155:1")
 */
export const ChainId = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (input: string) =>
        Result.match(validateChainId(input), {
          onFailure: (reason) => `not a CAIP-2 chain id: ${reason}`,
          onSuccess: () => undefined
        }),
      { expected: "a CAIP-2 chain id" }
    )
  ),
  Schema.brand("ChainId")
).annotate({ description: "CAIP-2 chain id, e.g. eip155:1" })

/** A valid CAIP-2 chain id string, e.g. `eip155:1`. */
export type ChainId = typeof ChainId.Type

/**
 * Parses a CAIP-2 chain id into its parts, failing with `ParamsValidation` whose message names
 * the input by `label`, e.g. `"chainId is not a CAIP-2 chain id: …"`.
 */
export const parseChainId = (input: string, label: string): Effect.Effect<ChainIdParts, ParamsValidation> =>
  Effect.fromResult(validateChainId(input)).pipe(
    Effect.mapError((reason) => new ParamsValidation({ message: `${label} is not a CAIP-2 chain id: ${reason}` }))
  )
