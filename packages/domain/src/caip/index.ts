/**
 * Chain-agnostic identifiers (CAIP): chain ids (CAIP-2), account ids (CAIP-10) and asset ids
 * (CAIP-19). Schemas decode untrusted strings at HTTP edges; `parse*` functions validate inside
 * Effect code and fail with `ParamsValidation`; `validate*` return a plain `Result`.
 */
export { ChainId, type ChainIdParts, parseChainId, validateChainId } from "./ChainId.ts"
export {
  AccountId,
  type AccountIdParts,
  accountChainId,
  formatAccountId,
  parseAccountId,
  validateAccountId
} from "./AccountId.ts"
export {
  AssetId,
  type AssetIdParts,
  assetChainId,
  formatAssetId,
  parseAssetId,
  sameChain,
  validateAssetId
} from "./AssetId.ts"
export { isHexAddress, isValidEip55, normalizeEip55Address, toChecksumAddress } from "./Eip55.ts"
export { keccak256 } from "./Keccak256.ts"
