/**
 * Push payments (API rules §10 "Push payments"): the buyer's wallet sends an ERC-20
 * `transfer(collectionAddress, value)` whose calldata carries the 16-byte payment reference appended
 * after the ABI-encoded arguments. Tokens ignore trailing calldata, so the transfer works as usual and
 * the reference identifies the payment on chain.
 *
 * @module
 */
import { Option } from "effect"
import { type Address, concatHex, decodeFunctionData, encodeFunctionData, type Hex, parseAbi, size, sliceHex } from "viem"

/** Bytes of a payment reference. */
export const referenceBytes = 16

const transferAbi = parseAbi(["function transfer(address to, uint256 value) returns (bool)"])
/** 4-byte selector + two 32-byte words. */
const transferCallBytes = 4 + 32 + 32

/** Whether `text` is a 0x-prefixed 16-byte reference. */
export const isReference = (text: string): text is Hex => /^0x[0-9a-fA-F]{32}$/.test(text)

/** The calldata a push payment's transaction carries: `transfer(to, value)` then the reference. */
export const encodeTransferWithReference = (to: Address, value: bigint, reference: Hex): Hex =>
  concatHex([encodeFunctionData({ abi: transferAbi, functionName: "transfer", args: [to, value] }), reference])

/** A decoded push payment's calldata. */
export interface TransferWithReference {
  readonly to: Address
  readonly value: bigint
  /** 0x + 32 lower-case hex digits. */
  readonly reference: Hex
}

/**
 * Decodes calldata of exactly `transfer(address,uint256)` (canonically encoded) followed by a 16-byte
 * reference; none for anything else (another function, no or a longer tail, dirty padding).
 */
export const decodeTransferWithReference = (data: Hex): Option.Option<TransferWithReference> => {
  if (!/^0x[0-9a-fA-F]*$/.test(data) || size(data) !== transferCallBytes + referenceBytes) return Option.none()
  const call = sliceHex(`0x${data.slice(2).toLowerCase()}`, 0, transferCallBytes)
  try {
    const decoded = decodeFunctionData({ abi: transferAbi, data: call })
    const [to, value] = decoded.args
    // Re-encoding must give the same bytes: rejects non-canonical words (e.g. dirty address padding).
    if (encodeFunctionData({ abi: transferAbi, functionName: "transfer", args: [to, value] }) !== call) {
      return Option.none()
    }
    return Option.some({ to, value, reference: `0x${sliceHex(data, transferCallBytes).slice(2).toLowerCase()}` })
  } catch {
    return Option.none()
  }
}
