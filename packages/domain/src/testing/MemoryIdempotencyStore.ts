import { Effect, Layer } from "effect"
import {
  type Completing,
  type CompletingOutcome,
  type IdempotencyClaim,
  type IdempotencyCompletion,
  type IdempotencyLease,
  type IdempotencyScope,
  IdempotencyStore,
  type StoredResponse
} from "../ports/IdempotencyStore.ts"

/** How long a key is remembered (API rules §5). */
export const idempotencyTtlMillis = 24 * 60 * 60 * 1000

/** How long an unanswered key is held by its request before a retry may take it over. */
export const idempotencyLeaseMillis = 30_000

/** One key: the body hash of its first request, when it was claimed, its holder, and its response once complete. */
export interface IdempotencyEntry {
  readonly bodyHash: string
  readonly claimedAt: number
  readonly token: string
  readonly response: StoredResponse | null
}

/** The state behind the in-memory idempotency store, exposed so tests can inspect it. */
export interface MemoryIdempotency {
  readonly entries: Map<string, IdempotencyEntry>
}

/** A fresh, empty idempotency store. */
export const makeMemoryIdempotency = (): MemoryIdempotency => ({ entries: new Map() })

const keyOf = (scope: IdempotencyScope) => JSON.stringify([scope.partnerId, scope.route, scope.key])

const heldEntry = (store: MemoryIdempotency, lease: IdempotencyLease) => {
  const entry = store.entries.get(keyOf(lease.scope))
  return entry !== undefined && entry.response === null && entry.token === lease.token ? entry : undefined
}

/**
 * Stores a claimed key's response if its lease still holds it; answers whether it did. What the
 * in-memory payment repository runs inside its insert (the keys live in the same store).
 */
export const completeHeld = (store: MemoryIdempotency, completion: IdempotencyCompletion): boolean => {
  const entry = heldEntry(store, completion.lease)
  if (entry !== undefined) store.entries.set(keyOf(completion.lease.scope), { ...entry, response: completion.response })
  return entry !== undefined
}

/**
 * In-memory {@link IdempotencyStore} for unit tests. A key lives 24 hours from its claim; a
 * different body is a `different_body` conflict, a claimed key without a response `in_flight`
 * until its lease ({@link idempotencyLeaseMillis}) runs out, when a retry takes it over.
 * A 5xx response is never stored: completing with one frees the key like `release`.
 */
export const layerMemoryIdempotency = (
  store: MemoryIdempotency = makeMemoryIdempotency(),
  leaseMillis = idempotencyLeaseMillis
): Layer.Layer<IdempotencyStore> => {
  let tokens = 0
  const release = (lease: IdempotencyLease) =>
    Effect.sync(() => {
      if (heldEntry(store, lease) !== undefined) store.entries.delete(keyOf(lease.scope))
    })
  // Memory has no transactions: the request's changes stay whatever it decided (unit tests only).
  const completing = <A, E, R>(lease: IdempotencyLease, request: Effect.Effect<Completing<A>, E, R>) =>
    Effect.flatMap(request, ({ keep, value }): Effect.Effect<{ readonly outcome: CompletingOutcome; readonly value: A }> => {
      if (keep === "released" || keep === "undone") {
        return Effect.as(release(lease), { outcome: keep === "undone" ? "undone" as const : "committed" as const, value })
      }
      return Effect.sync(() => ({
        outcome: completeHeld(store, { lease, response: keep }) ? "committed" as const : "leaseLost" as const,
        value
      }))
    })
  return Layer.succeed(IdempotencyStore, IdempotencyStore.of({
    claim: (scope, bodyHash, nowMillis) =>
      Effect.sync((): IdempotencyClaim => {
        const key = keyOf(scope)
        const entry = store.entries.get(key)
        const live = entry !== undefined && nowMillis - entry.claimedAt < idempotencyTtlMillis &&
          (entry.response !== null || nowMillis - entry.claimedAt < leaseMillis)
        if (live) {
          if (entry.bodyHash !== bodyHash) return { _tag: "Conflict", reason: "different_body" }
          if (entry.response === null) return { _tag: "Conflict", reason: "in_flight" }
          return { _tag: "Replay", response: entry.response }
        }
        const token = `lease-${++tokens}`
        store.entries.set(key, { bodyHash, claimedAt: nowMillis, token, response: null })
        return { _tag: "Claimed", lease: { scope, token } }
      }),
    complete: (completion) =>
      completion.response.status >= 500
        ? release(completion.lease).pipe(Effect.as(true))
        : Effect.sync(() => completeHeld(store, completion)),
    release,
    completing,
    completingWrite: completing,
    purgeExpired: (nowMillis, limit) =>
      Effect.sync(() => {
        const expired = [...store.entries].filter(([, entry]) => nowMillis - entry.claimedAt >= idempotencyTtlMillis)
          .sort(([, a], [, b]) => a.claimedAt - b.claimedAt)
          .slice(0, limit)
        for (const [key] of expired) store.entries.delete(key)
        return expired.length
      })
  }))
}
