/**
 * ECDSA on secp256k1 as the service uses it: who signed a 32-byte hash (every confirm asks at least
 * once), and signing one (every transaction the service sends).
 *
 * It runs libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`), several times faster than viem's
 * pure-JavaScript `@noble/curves`, with viem's results: recovery accepts exactly the signatures viem
 * does (65 bytes, `v` of 0/1/27/28) and checksums the address (EIP-55); signing is deterministic
 * (RFC 6979) with a low `s`, so the signature is byte for byte viem's. The tests compare the two.
 *
 * Loading it compiles the WebAssembly, so its users load it through `Secp256k1Loader.ts`.
 *
 * @module
 */
import { keccak_256 } from "@noble/hashes/sha3"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils"
import { recover, signRecoverable } from "tiny-secp256k1"

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

/** The signature of `hash` (32 bytes) by `privateKey` (32 bytes): `r`, `s` (low) and the recovery bit. */
export const signHash = (hash: Uint8Array, privateKey: Uint8Array): { readonly r: Hex; readonly s: Hex; readonly yParity: 0 | 1 } => {
  const { recoveryId, signature } = signRecoverable(hash, privateKey)
  return {
    r: `0x${bytesToHex(signature.subarray(0, 32))}`,
    s: `0x${bytesToHex(signature.subarray(32))}`,
    // libsecp256k1 normalizes to a low s, so the bit is 0 or 1 (2 and 3 need an r of n or more).
    yParity: (recoveryId & 1) as 0 | 1
  }
}
