/**
 * How the escrow and the subscription vault bind a buyer's terms to themselves and to one chain:
 * `keccak256(abi.encode(block.chainid, address(this), terms))`, with the terms' tuple type taken
 * from the contract's own ABI, so the off-chain hash cannot drift from the contract's.
 *
 * @module
 */
import { type Abi, type AbiParameter, type Address, encodeAbiParameters, getAbiItem, type Hex, keccak256 } from "viem"

/** The tuple type of the terms a contract's `termsHash(Terms)` takes. */
export const termsType = (abi: Abi): AbiParameter => {
  const item = getAbiItem({ abi, name: "termsHash" })
  if (item === undefined || item.type !== "function" || item.inputs[0] === undefined) throw new Error("the contract has no termsHash(Terms)")
  return item.inputs[0]
}

/** The contract's `termsHash` of `terms` on chain `chainId`. */
export const contractTermsHash = (type: AbiParameter, chainId: number, contract: Address, terms: object): Hex =>
  keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "address" }, type], [BigInt(chainId), contract, terms]))
