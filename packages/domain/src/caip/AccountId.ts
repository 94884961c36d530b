/**
 * CAIP-10 account ids: a CAIP-2 chain id and an address on that chain, e.g.
 * `eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb`.
 *
 * @see https://chainagnostic.org/CAIPs/caip-10
 */
import { Effect, Result, Schema, SchemaGetter } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { type ChainId, validateChainId } from "./ChainId.ts"
import { normalizeEip55Address } from "./Eip55.ts"

const ADDRESS = /^[-.%a-zA-Z0-9]{1,128}$/

/** A CAIP-10 account id split into its chain id and address. */
export interface AccountIdParts {
  readonly chainId: ChainId
  readonly address: string
}

/**
 * Checks a CAIP-10 account id, `namespace:reference:address`, and returns its parts in canonical
 * form: `eip155` addresses must be `0x` + 40 hex digits and come back in EIP-55 checksum case.
 * Other namespaces' addresses are kept as given. The failure is a phrase for error messages.
 */
export const validateAccountId = (input: string): Result.Result<AccountIdParts, string> => {
  const parts = input.split(":")
  const [namespace, reference, address] = parts
  if (parts.length !== 3 || namespace === undefined || reference === undefined || address === undefined) {
    return Result.fail('expected the form "namespace:reference:address"')
  }
  const chain = validateChainId(`${namespace}:${reference}`)
  if (Result.isFailure(chain)) return Result.fail(chain.failure)
  // Validated just above, so the brand is earned.
  const chainId = `${namespace}:${reference}` as ChainId
  if (!ADDRESS.test(address)) {
    return Result.fail('the account address must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"')
  }
  if (namespace !== "eip155") return Result.succeed({ chainId, address })
  return Result.match(normalizeEip55Address(address), {
    onFailure: (reason) => Result.fail(`the eip155 account address ${reason}`),
    onSuccess: (checksummed) => Result.succeed({ chainId, address: checksummed })
  })
}

const joinParts = (parts: AccountIdParts): string => `${parts.chainId}:${parts.address}`

/** The branded type side: valid and already canonical, so `AccountId.make` rejects other spellings. */
const CanonicalAccountId = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (input: string) =>
        Result.match(validateAccountId(input), {
          onFailure: (reason) => `not a CAIP-10 account id: ${reason}`,
          onSuccess: (parts) =>
            joinParts(parts) === input || "not a canonical CAIP-10 account id: use the EIP-55 checksum address"
        }),
      { expected: "a CAIP-10 account id" }
    )
  ),
  Schema.brand("AccountId")
)

/**
 * A valid CAIP-10 account id string in canonical form. Decoding normalizes `eip155` addresses to
 * their EIP-55 checksum case; encoding returns the canonical string unchanged.
 *
 * @example
 * Schema.decodeUnknownSync(AccountId)("eip155:1:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb")
 * // "eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb"
 */
export const AccountId = Schema.String.pipe(
  Schema.decodeTo(CanonicalAccountId, {
    // Invalid input is passed on untouched so that the check above reports why it is invalid.
    decode: SchemaGetter.transform((input: string) =>
      Result.match(validateAccountId(input), { onFailure: () => input, onSuccess: joinParts })
    ),
    encode: SchemaGetter.passthrough()
  })
).annotate({ description: "CAIP-10 account id, e.g. eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb" })

/** A valid CAIP-10 account id string in canonical form. */
export type AccountId = typeof AccountId.Type

/**
 * Parses a CAIP-10 account id into its canonical parts, failing with `ParamsValidation` whose
 * message names the input by `label`, e.g. `"accounts[0] is not a CAIP-10 account id: …"`.
 */
export const parseAccountId = (input: string, label: string): Effect.Effect<AccountIdParts, ParamsValidation> =>
  Effect.fromResult(validateAccountId(input)).pipe(
    Effect.mapError((reason) => new ParamsValidation({ message: `${label} is not a CAIP-10 account id: ${reason}` }))
  )

/**
 * The account id of a chain id and address, normalized like decoding. Meant for parts the program
 * already trusts (e.g. from {@link parseAccountId}); throws if they do not form a valid account id.
 */
export const formatAccountId = (parts: AccountIdParts): AccountId => Schema.decodeSync(AccountId)(joinParts(parts))

/** The chain id an account id lives on, e.g. `eip155:1`. */
export const accountChainId = (accountId: AccountId): ChainId =>
  // The address cannot contain ":", so the chain id is everything before the last one.
  accountId.slice(0, accountId.lastIndexOf(":")) as ChainId
