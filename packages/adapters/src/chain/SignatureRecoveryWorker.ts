/**
 * Worker-thread entry of `SignatureRecovery.ts`: recovers the signer's address of an ECDSA
 * (secp256k1) signature over a 32-byte hash, which costs ≈ 4 ms of CPU in pure JavaScript. Loaded
 * by `new Worker(url)` (Node strips the types), never imported for its values.
 *
 * @module
 */
import { parentPort } from "node:worker_threads"
import { type Address, type Hex, recoverAddress } from "viem"

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

const port = parentPort
if (port !== null) {
  port.on("message", (request: RecoveryRequest) => {
    const reply = (address: Address | null) => port.postMessage({ id: request.id, address } satisfies RecoveryResponse)
    recoverAddress({ hash: request.hash, signature: request.signature }).then(reply, () => reply(null))
  })
}
