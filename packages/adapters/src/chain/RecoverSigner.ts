/**
 * The signer's address of an ECDSA (secp256k1) signature over a 32-byte hash.
 *
 * It runs libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`), several times faster than viem's
 * pure-JavaScript recovery (`@noble/curves`), and every confirm recovers at least once. It accepts
 * exactly the signatures viem does (65 bytes, `v` of 0/1/27/28; the tests compare the two), and the
 * address is EIP-55 checksummed.
 *
 * Loading it compiles the WebAssembly, so the recovery worker and the inline recovery import it
 * when they first need it.
 *
 * @module
 */
import { keccak_256 } from "@noble/hashes/sha3"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils"
import { recover } from "tiny-secp256k1"

type Hex = `0x${string}`
type Address = `0x${string}`

const hash32 = /^0x[0-9a-fA-F]{64}$/
const signature65 = /^0x[0-9a-fA-F]{130}$/

const recoveryBit = (v: number) => (v === 0 || v === 1 ? v : v === 27 ? 0 : v === 28 ? 1 : undefined)

/** EIP-55: a letter is upper case where the keccak of the lower-case address has a nibble ≥ 8. */
const checksummed = (lower: string): Address => {
  const digest = bytesToHex(keccak_256(utf8ToBytes(lower)))
  let out = "0x"
  for (let i = 0; i < lower.length; i++) out += parseInt(digest[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  return out as Address
}

/** The signer of `hash`, or `null` when the signature is malformed or recovers to no key. */
export const recoverSigner = (hash: Hex, signature: Hex): Address | null => {
  if (!hash32.test(hash) || !signature65.test(signature)) return null
  const bit = recoveryBit(parseInt(signature.slice(130), 16))
  if (bit === undefined) return null
  let publicKey: Uint8Array | null
  try {
    // Throws on r or s outside [1, n), answers null when r is no point's x: both mean no signer.
    publicKey = recover(hexToBytes(hash.slice(2)), hexToBytes(signature.slice(2, 130)), bit, false)
  } catch {
    return null
  }
  if (publicKey === null) return null
  // The address: the last 20 bytes of the keccak of the uncompressed key without its 0x04 prefix.
  return checksummed(bytesToHex(keccak_256(publicKey.subarray(1))).slice(24))
}
