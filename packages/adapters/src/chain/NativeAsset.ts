/**
 * A chain's native asset (ETH on Ethereum, Base, Optimism and Arbitrum; POL on Polygon) as a
 * payable asset: CAIP-19 `eip155:<chain>/slip44:<coin type>` (60 for ETH, 966 for POL). It has no
 * contract and its transfers leave no `Transfer` log, so:
 *
 * - an option is one `eth_sendTransaction` of `value` wei from the buyer to the collection address,
 *   the option's 16-byte reference as calldata (accounts accept calldata with value), so that the
 *   payment is found by its reference like a push transfer's ({@link nativeTransferAction});
 * - the configuration allows one native asset per chain, never with EIP-3009 (it is a push payment);
 * - where an ERC-20 code path needs a token address, {@link nativeToken} stands for it: the widely
 *   used marker no contract can have, so that an ERC-20 call on it fails instead of paying.
 *
 * @module
 */
import type { Action } from "@paygate/domain"
import { type Address, type Hex, numberToHex } from "viem"

/** Stands for the native asset where a token address is expected. */
export const nativeToken: Address = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"

/** Whether a CAIP-19 id is an eip155 chain's native asset (`slip44` namespace). */
export const isNativeAssetId = (assetId: string): boolean => /^eip155:[0-9]+\/slip44:[0-9]+$/.test(assetId)

/** Whether `token` (as returned by `lookupAsset`) is the native asset. */
export const isNativeToken = (token: string): boolean => token.toLowerCase() === nativeToken.toLowerCase()

/** Configuration problems of `assets[i]` when it is a native asset: EIP-3009 set, or a second native asset on its chain. */
export const nativeAssetProblems = (
  assets: ReadonlyArray<{ readonly assetId: string; readonly eip3009: boolean }>,
  i: number
): ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }> => {
  const asset = assets[i]!
  if (!isNativeAssetId(asset.assetId)) return []
  const chainId = asset.assetId.slice(0, asset.assetId.indexOf("/"))
  const problems: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }> = []
  if (asset.eip3009) problems.push({ path: ["assets", i, "eip3009"], issue: "a native asset has no EIP-3009 authorizations: set false" })
  const earlier = assets.slice(0, i).some((other) => isNativeAssetId(other.assetId) && other.assetId.startsWith(`${chainId}/`))
  if (earlier) problems.push({ path: ["assets", i, "assetId"], issue: `chain ${chainId} has a native asset already` })
  return problems
}

/** The wallet action of a native option: send `value` wei to `to` with the option's reference as calldata. */
export const nativeTransferAction = (
  option: { readonly chainId: string; readonly payer: Address; readonly collection: Address; readonly value: bigint },
  reference: Hex
): Action => ({
  type: "walletRpc",
  data: {
    chain_id: option.chainId,
    method: "eth_sendTransaction",
    params: [{ from: option.payer, to: option.collection, value: numberToHex(option.value), data: reference }]
  }
})

/**
 * Why `tx` is not the native transfer of exactly `value` wei to `collection` with `reference` as
 * its calldata; `undefined` when it is. The amount is read from the transaction, never the wallet.
 */
export const nativeTransferProblem = (
  tx: { readonly to: string | null; readonly input: Hex; readonly value: bigint },
  collection: string,
  value: bigint,
  reference: string
): string | undefined => {
  if (tx.to === null || tx.to.toLowerCase() !== collection.toLowerCase()) return "The transaction does not pay the collection address."
  if (tx.value !== value) return "The transaction's value is not the option's amount."
  if (tx.input.toLowerCase() !== reference.toLowerCase()) return "The transaction does not carry this payment's reference as its data."
  return undefined
}
