/**
 * ECDSA public-key recovery (who signed this hash?), off the event loop.
 *
 * Recovering a secp256k1 signer is the costliest step of a confirm, even in WebAssembly
 * (`Secp256k1.ts`): done on the main thread, a burst of confirms would delay every other request.
 * {@link layerWorkers} runs recoveries on a small pool of `node:worker_threads` workers instead; the
 * main thread hashes the typed data and posts 100 bytes. {@link layerInline} recovers on the
 * calling thread, for scripts and tests that do not care.
 *
 * Each worker is a V8 isolate of its own (tens of megabytes resident once busy), so the pool starts empty
 * and starts a worker only when every running one is busy, up to its size; a process that never
 * recovers a signature runs none. Each worker's heap is capped small ({@link workerLimits}).
 *
 * @module
 */
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { Address, Hex } from "viem"
import { secp256k1 } from "./Secp256k1Loader.ts"
import { recoveryWorkerData, type RecoveryRequest, type RecoveryResponse } from "./SignatureRecoveryWorker.ts"

/** Recovers signers of 32-byte hashes. */
export class SignatureRecovery extends Context.Service<SignatureRecovery, {
  /** The address whose key made `signature` (65 or 64 bytes) over `hash`; none if it recovers to no key. */
  readonly recover: (hash: Hex, signature: Hex) => Effect.Effect<Option.Option<Address>>
}>()("@paygate/adapters/chain/SignatureRecovery") {}

/** A recovery worker crashed or exited while working on a request (a defect: it should never happen). */
export class SignatureRecoveryWorkerError extends Schema.TaggedError<SignatureRecoveryWorkerError>()(
  "SignatureRecoveryWorkerError",
  { message: Schema.String }
) {}

/** Recovery on the calling thread: simple, but blocks the event loop for each call. */
export const layerInline: Layer.Layer<SignatureRecovery> = Layer.succeed(
  SignatureRecovery,
  SignatureRecovery.of({
    recover: (hash, signature) =>
      Effect.promise(secp256k1).pipe(
        Effect.map(({ recoverSigner }) => Option.fromNullishOr(recoverSigner(hash, signature)))
      )
  })
)

/** Options of {@link layerWorkers}. */
export interface PoolOptions {
  /** Worker threads; default: CPUs − 1, between 1 and 4. */
  readonly size?: number | undefined
}

interface Slot {
  worker: Worker
  inFlight: number
}

interface Waiting {
  readonly slot: Slot
  readonly resume: (effect: Effect.Effect<Option.Option<Address>>) => void
}

const workerUrl = new URL("./SignatureRecoveryWorker.ts", import.meta.url)

/**
 * A worker only holds a few messages at a time: a small young generation keeps its resident size
 * down.
 */
export const workerLimits = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 }

/** Starts the pool; its workers are terminated when the scope closes. */
const startPool = (size: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const waiting = new Map<number, Waiting>()
      const slots: Array<Slot> = []
      const state = { closed: false, nextId: 0 }

      const done = (slot: Slot) => {
        slot.inFlight -= 1
        // An idle worker must not keep the process alive.
        if (slot.inFlight === 0) slot.worker.unref()
      }

      const spawnInto = (index: number) => {
        const worker = new Worker(workerUrl, { resourceLimits: workerLimits, workerData: recoveryWorkerData })
        worker.unref()
        const slot: Slot = { worker, inFlight: 0 }
        slots[index] = slot
        worker.on("message", (response: RecoveryResponse) => {
          const entry = waiting.get(response.id)
          if (entry === undefined) return
          waiting.delete(response.id)
          done(slot)
          entry.resume(Effect.succeed(Option.fromNullishOr(response.address)))
        })
        const crashed = (why: string) => {
          for (const [id, entry] of waiting) {
            if (entry.slot !== slot) continue
            waiting.delete(id)
            entry.resume(Effect.die(new SignatureRecoveryWorkerError({ message: `A recovery worker ${why}.` })))
          }
          slot.inFlight = 0
          if (!state.closed && slots[index] === slot) spawnInto(index)
        }
        worker.on("error", (error) => crashed(`failed (${error.name}: ${error.message})`))
        worker.on("exit", (code) => crashed(`exited with code ${code}`))
      }

      // The least busy worker (ties go to the first); a new one when all are busy and the pool may grow.
      const pick = () => {
        const least = slots.reduce<Slot | undefined>((best, candidate) => best === undefined || candidate.inFlight < best.inFlight ? candidate : best, undefined)
        if (least !== undefined && (least.inFlight === 0 || slots.length >= size)) return least
        spawnInto(slots.length)
        return slots[slots.length - 1]!
      }

      const recover = (hash: Hex, signature: Hex) =>
        Effect.callback<Option.Option<Address>>((resume) => {
          if (state.closed) {
            resume(Effect.die(new SignatureRecoveryWorkerError({ message: "The recovery pool is closed." })))
            return
          }
          const slot = pick()
          const id = state.nextId++
          waiting.set(id, { slot, resume })
          if (slot.inFlight === 0) slot.worker.ref()
          slot.inFlight += 1
          slot.worker.postMessage({ id, hash, signature } satisfies RecoveryRequest)
          // Interrupted: forget the request; the worker's late answer is ignored.
          return Effect.sync(() => {
            if (waiting.delete(id)) done(slot)
          })
        })

      const close = () => {
        state.closed = true
        return Promise.all(slots.map((slot) => slot.worker.terminate()))
      }
      return { service: SignatureRecovery.of({ recover }), close }
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ service }) => service))

/** The default pool size: CPUs − 1, between 1 and 4. */
export const defaultPoolSize = (): number => Math.min(4, Math.max(1, availableParallelism() - 1))

/** Recovery on a pool of up to `size` worker threads, started as needed and stopped with the layer's scope. */
export const layerWorkers = (options: PoolOptions = {}): Layer.Layer<SignatureRecovery> =>
  Layer.effect(SignatureRecovery, startPool(Math.max(1, options.size ?? defaultPoolSize())))
