/**
 * 65-byte ECDSA signatures (r ‖ s ‖ v) as wallets return them from `eth_signTypedData_v4`, held to
 * the rules an EIP-3009 token applies on chain: `s` in the lower half of the curve order (the other
 * half is the malleable twin) and `v` 27 or 28 (0 and 1, which some hardware wallets return, are
 * read as 27 and 28).
 *
 * @module
 */
import { Result } from "effect"
import { concatHex, type Hex, hexToBigInt, numberToHex, sliceHex } from "viem"

/** secp256k1 order / 2. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** A signature split for `transferWithAuthorization(…, v, r, s)`. */
export interface EcdsaSignature {
  readonly r: Hex
  readonly s: Hex
  /** 27 or 28. */
  readonly v: 27 | 28
  /** The same signature, 65 bytes with `v` 27 or 28. */
  readonly serialized: Hex
}

/** Whether `text` is 0x-prefixed hex of whole bytes. */
export const isHexBytes = (text: string): text is Hex => /^0x(?:[0-9a-fA-F]{2})*$/.test(text)

const isSignature65 = (text: string): text is Hex => /^0x[0-9a-fA-F]{130}$/.test(text)

/**
 * Splits a 65-byte signature; the failure is a phrase for error messages. Anything else (e.g. an
 * EIP-1271 contract-wallet signature) is not an ECDSA signature.
 */
export const parseEcdsaSignature = (signature: string): Result.Result<EcdsaSignature, string> => {
  if (!isSignature65(signature)) return Result.fail("is not a 65-byte signature")
  const hex = signature
  const r = sliceHex(hex, 0, 32)
  const s = sliceHex(hex, 32, 64)
  const rawV = Number.parseInt(hex.slice(130), 16)
  const v = rawV === 0 || rawV === 27 ? 27 : rawV === 1 || rawV === 28 ? 28 : undefined
  if (v === undefined) return Result.fail("has a recovery id (v) other than 27 or 28")
  if (hexToBigInt(s) > HALF_ORDER) return Result.fail("is not in canonical low-s form")
  return Result.succeed({ r, s, v, serialized: concatHex([r, s, numberToHex(v, { size: 1 })]) })
}
