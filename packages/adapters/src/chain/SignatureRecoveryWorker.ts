/**
 * Worker-thread entry of `SignatureRecovery.ts` and its messages. The recovery itself is
 * `Secp256k1.ts`, imported only by a recovery worker: this module is also imported on the main
 * thread (for its protocol), which must not compile the WebAssembly it runs on.
 *
 * @module
 */
import { parentPort, workerData } from "node:worker_threads"
import { secp256k1 } from "./Secp256k1Loader.ts"

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

// Imported on the main thread (or in another library's worker) it stays passive. Requests posted
// while the recovery loads wait in the port's queue: it starts delivering once the listener is on.
const port = parentPort
if (port !== null && workerData === recoveryWorkerData) {
  void secp256k1().then(({ recoverSigner }) =>
    port.on("message", (request: RecoveryRequest) => {
      port.postMessage({ id: request.id, address: recoverSigner(request.hash, request.signature) } satisfies RecoveryResponse)
    })
  )
}
