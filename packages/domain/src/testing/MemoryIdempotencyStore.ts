import { Effect, Layer } from "effect"
import { type IdempotencyClaim, type IdempotencyScope, IdempotencyStore, type StoredResponse } from "../ports/IdempotencyStore.ts"

/** How long a key is remembered (contract §9). */
export const idempotencyTtlMillis = 24 * 60 * 60 * 1000

/** One key: the body hash of its first request, when it was claimed, and its response once complete. */
export interface IdempotencyEntry {
  readonly bodyHash: string
  readonly claimedAt: number
  readonly response: StoredResponse | null
}

/** The state behind the in-memory idempotency store, exposed so tests can inspect it. */
export interface MemoryIdempotency {
  readonly entries: Map<string, IdempotencyEntry>
}

/** A fresh, empty idempotency store. */
export const makeMemoryIdempotency = (): MemoryIdempotency => ({ entries: new Map() })

const keyOf = (scope: IdempotencyScope) => JSON.stringify([scope.partnerId, scope.route, scope.key])

/**
 * In-memory {@link IdempotencyStore} for unit tests. A key lives 24 hours from its claim; a
 * different body is a `different_body` conflict, a claimed key without a response `in_flight`.
 * A 5xx response is never stored: completing with one frees the key like `release`.
 */
export const layerMemoryIdempotency = (store: MemoryIdempotency = makeMemoryIdempotency()): Layer.Layer<IdempotencyStore> => {
  const release = (scope: IdempotencyScope) =>
    Effect.sync(() => {
      const key = keyOf(scope)
      if (store.entries.get(key)?.response === null) store.entries.delete(key)
    })
  return Layer.succeed(IdempotencyStore, IdempotencyStore.of({
    claim: (scope, bodyHash, nowMillis) =>
      Effect.sync((): IdempotencyClaim => {
        const key = keyOf(scope)
        const entry = store.entries.get(key)
        if (entry !== undefined && nowMillis - entry.claimedAt < idempotencyTtlMillis) {
          if (entry.bodyHash !== bodyHash) return { _tag: "Conflict", reason: "different_body" }
          if (entry.response === null) return { _tag: "Conflict", reason: "in_flight" }
          return { _tag: "Replay", response: entry.response }
        }
        store.entries.set(key, { bodyHash, claimedAt: nowMillis, response: null })
        return { _tag: "Claimed" }
      }),
    complete: (scope, response) =>
      response.status >= 500
        ? release(scope)
        : Effect.sync(() => {
          const key = keyOf(scope)
          const entry = store.entries.get(key)
          if (entry !== undefined && entry.response === null) store.entries.set(key, { ...entry, response })
        }),
    release
  }))
}
