/**
 * CAIP-19 asset types and ids: a CAIP-2 chain id, an asset namespace and reference, and for
 * individually addressable assets (NFTs) a token id, e.g. `eip155:1/erc20:0x6B17…1d0F` or
 * `eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d/771769`.
 *
 * @see https://chainagnostic.org/CAIPs/caip-19
 */
import { Effect, Result, Schema, SchemaGetter } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { type AccountId, accountChainId } from "./AccountId.ts"
import { type ChainId, validateChainId } from "./ChainId.ts"
import { normalizeEip55Address } from "./Eip55.ts"

const ASSET_NAMESPACE = /^[-a-z0-9]{3,8}$/
const ASSET_REFERENCE = /^[-.%a-zA-Z0-9]{1,128}$/
const TOKEN_ID = /^[-.%a-zA-Z0-9]{1,78}$/

/** A CAIP-19 asset type or asset id split into its parts; `tokenId` only for an asset id. */
export interface AssetIdParts {
  readonly chainId: ChainId
  readonly assetNamespace: string
  readonly assetReference: string
  readonly tokenId?: string
}

/**
 * Checks a CAIP-19 asset type, `chain_id/asset_namespace:asset_reference`, or asset id (the same
 * with `/token_id`), and returns its parts in canonical form: on `eip155` chains an `erc20`
 * reference must be a `0x` + 40 hex digit contract address and comes back in EIP-55 checksum
 * case. Other references are kept as given. The failure is a phrase for error messages.
 */
export const validateAssetId = (input: string): Result.Result<AssetIdParts, string> => {
  const segments = input.split("/")
  const [chain, assetType, tokenId] = segments
  const assetParts = assetType?.split(":") ?? []
  const [assetNamespace, assetReference] = assetParts
  if (
    segments.length > 3 ||
    chain === undefined ||
    assetParts.length !== 2 ||
    assetNamespace === undefined ||
    assetReference === undefined
  ) {
    return Result.fail('expected the form "namespace:reference/asset_namespace:asset_reference[/token_id]"')
  }
  const validChain = validateChainId(chain)
  if (Result.isFailure(validChain)) return Result.fail(validChain.failure)
  // Validated just above, so the brand is earned.
  const chainId = chain as ChainId
  if (!ASSET_NAMESPACE.test(assetNamespace)) {
    return Result.fail('the asset namespace must be 3 to 8 characters of a-z, 0-9 or "-"')
  }
  if (!ASSET_REFERENCE.test(assetReference)) {
    return Result.fail('the asset reference must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"')
  }
  if (tokenId !== undefined && !TOKEN_ID.test(tokenId)) {
    return Result.fail('the token id must be 1 to 78 characters of a-z, A-Z, 0-9, "-", "." or "%"')
  }
  const parts = { chainId, assetNamespace, assetReference, ...(tokenId === undefined ? {} : { tokenId }) }
  if (validChain.success.namespace !== "eip155" || assetNamespace !== "erc20") return Result.succeed(parts)
  return Result.match(normalizeEip55Address(assetReference), {
    onFailure: (reason) => Result.fail(`the erc20 contract address ${reason}`),
    onSuccess: (checksummed) => Result.succeed({ ...parts, assetReference: checksummed })
  })
}

const joinParts = (parts: AssetIdParts): string =>
  `${parts.chainId}/${parts.assetNamespace}:${parts.assetReference}` +
  (parts.tokenId === undefined ? "" : `/${parts.tokenId}`)

/** The branded type side: valid and already canonical, so `AssetId.make` rejects other spellings. */
const CanonicalAssetId = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (input: string) =>
        Result.match(validateAssetId(input), {
          onFailure: (reason) => `not a CAIP-19 asset id: ${reason}`,
          onSuccess: (parts) =>
            joinParts(parts) === input || "not a canonical CAIP-19 asset id: use the EIP-55 checksum address"
        }),
      { expected: "a CAIP-19 asset id" }
    )
  ),
  Schema.brand("AssetId")
)

/**
 * A valid CAIP-19 asset type or asset id string in canonical form. Decoding normalizes `eip155`
 * `erc20` contract addresses to their EIP-55 checksum case; encoding returns the string unchanged.
 *
 * @example
 * Schema.decodeUnknownSync(AssetId)("eip155:1/erc20:0x6b175474e89094c44da98b954eedeac495271d0f")
 * // "eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0F"
 */
export const AssetId = Schema.String.pipe(
  Schema.decodeTo(CanonicalAssetId, {
    // Invalid input is passed on untouched so that the check above reports why it is invalid.
    decode: SchemaGetter.transform((input: string) =>
      Result.match(validateAssetId(input), { onFailure: () => input, onSuccess: joinParts })
    ),
    encode: SchemaGetter.passthrough()
  })
).annotate({
  description: "CAIP-19 asset type or asset id, e.g. eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0F"
})

/** A valid CAIP-19 asset type or asset id string in canonical form. */
export type AssetId = typeof AssetId.Type

/**
 * Parses a CAIP-19 asset type or asset id into its canonical parts, failing with
 * `ParamsValidation` whose message names the input by `label`, e.g. `"asset is not a CAIP-19 asset id: …"`.
 */
export const parseAssetId = (input: string, label: string): Effect.Effect<AssetIdParts, ParamsValidation> =>
  Effect.fromResult(validateAssetId(input)).pipe(
    Effect.mapError((reason) => new ParamsValidation({ message: `${label} is not a CAIP-19 asset id: ${reason}` }))
  )

/**
 * The asset id of its parts, normalized like decoding. Meant for parts the program already trusts
 * (e.g. from {@link parseAssetId}); throws if they do not form a valid asset id.
 */
export const formatAssetId = (parts: AssetIdParts): AssetId => Schema.decodeSync(AssetId)(joinParts(parts))

/** The chain id an asset lives on, e.g. `eip155:1`. */
export const assetChainId = (assetId: AssetId): ChainId =>
  // A chain id cannot contain "/", so it is everything before the first one.
  assetId.slice(0, assetId.indexOf("/")) as ChainId

/** Whether an asset and an account are on the same chain, e.g. before paying that asset to that account. */
export const sameChain = (assetId: AssetId, accountId: AccountId): boolean =>
  assetChainId(assetId) === accountChainId(accountId)
