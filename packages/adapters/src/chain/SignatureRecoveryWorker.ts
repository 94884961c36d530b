/**
 * Worker-thread entry of `SignatureRecovery.ts`, and the recovery itself: the signer's address of
 * an ECDSA (secp256k1) signature over a 32-byte hash, milliseconds of CPU in pure JavaScript.
 *
 * It uses `@noble/curves` and `@noble/hashes` (what viem's `recoverAddress` runs on) directly: a
 * worker that imports viem holds its whole module graph, about twice what these two need. The result is viem's: the same signatures accepted (65 bytes, `v` of
 * 0/1/27/28), the address EIP-55 checksummed.
 *
 * @module
 */
import { secp256k1 } from "@noble/curves/secp256k1"
import { keccak_256 } from "@noble/hashes/sha3"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils"
import { parentPort, workerData } from "node:worker_threads"

type Hex = `0x${string}`
type Address = `0x${string}`

/** The `workerData` the pool starts its workers with: only such a thread answers recoveries. */
export const recoveryWorkerData = "@paygate/adapters/SignatureRecoveryWorker"

/** One recovery asked of a worker. */
export interface RecoveryRequest {
  readonly id: number
  readonly hash: Hex
  readonly signature: Hex
}

/** A worker's answer: the signer, or `null` when the signature does not recover to any key. */
export interface RecoveryResponse {
  readonly id: number
  readonly address: Address | null
}

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
  try {
    const publicKey = secp256k1.Signature.fromCompact(signature.slice(2, 130)).addRecoveryBit(bit).recoverPublicKey(hash.slice(2))
    // The address: the last 20 bytes of the keccak of the uncompressed key without its 0x04 prefix.
    return checksummed(bytesToHex(keccak_256(hexToBytes(publicKey.toHex(false)).subarray(1))).slice(24))
  } catch {
    return null
  }
}

// Imported for `recoverSigner` on the main thread (or in another library's worker) it stays passive.
const port = parentPort
if (port !== null && workerData === recoveryWorkerData) {
  port.on("message", (request: RecoveryRequest) => {
    port.postMessage({ id: request.id, address: recoverSigner(request.hash, request.signature) } satisfies RecoveryResponse)
  })
}
