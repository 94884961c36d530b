/**
 * A small in-process cache: entries live `ttlMillis` from when their read started, at most
 * `maxEntries` of them (the least recently used go first). Time is passed in, so callers read it
 * from `Clock` and tests drive it with `TestClock`.
 *
 * Invalidation races: a read that started before an invalidation must not put what it read back
 * into the cache. Every invalidation bumps an epoch; a fill carries the epoch its read started in
 * and is dropped when that epoch is over.
 *
 * @module
 */
import { Clock, Effect, Option } from "effect"

/** Bounded, time-limited, invalidatable key-value cache. */
export interface TtlCache<K, V> {
  /** The value of `key` if it was read less than the TTL before `now`. */
  readonly get: (key: K, now: number) => V | undefined
  /** The epoch a read starts in; pass it to {@link TtlCache.set}. */
  readonly epoch: () => number
  /** Stores `value`, read at `readAt` in epoch `epoch`, unless an invalidation happened since. */
  readonly set: (key: K, value: V, readAt: number, epoch: number) => void
  /** Drops every entry `matches` accepts (all without it) and ends the current epoch. */
  readonly invalidate: (matches?: (key: K, value: V) => boolean) => void
  /** Entries held, expired ones not yet dropped included. */
  readonly size: () => number
}

/** A cache of at most `maxEntries` entries living `ttlMillis`; a TTL of 0 disables it (nothing is kept). */
export const make = <K, V>(options: { readonly ttlMillis: number; readonly maxEntries: number }): TtlCache<K, V> => {
  const { ttlMillis, maxEntries } = options
  const entries = new Map<K, { readonly value: V; readonly expiresAt: number }>()
  let epoch = 0

  const get = (key: K, now: number) => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    entries.delete(key)
    if (entry.expiresAt <= now) return undefined
    entries.set(key, entry) // most recently used last: the map's order is the eviction order
    return entry.value
  }

  const set = (key: K, value: V, readAt: number, readEpoch: number) => {
    if (ttlMillis <= 0 || maxEntries <= 0 || readEpoch !== epoch) return
    entries.delete(key)
    entries.set(key, { value, expiresAt: readAt + ttlMillis })
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as K)
  }

  const invalidate = (matches?: (key: K, value: V) => boolean) => {
    epoch++
    if (matches === undefined) return entries.clear()
    for (const [key, entry] of entries) if (matches(key, entry.value)) entries.delete(key)
  }

  return { get, epoch: () => epoch, set, invalidate, size: () => entries.size }
}

/**
 * `lookup` through `cache`: a fresh hit answers at once; otherwise `lookup` runs and a found
 * value is kept (absent ones are not, so a credential created elsewhere works at once). Without
 * a cache, just `lookup()`.
 */
export const through = <K, V, E, R>(
  cache: TtlCache<K, V> | undefined,
  key: K,
  lookup: () => Effect.Effect<Option.Option<V>, E, R>
): Effect.Effect<Option.Option<V>, E, R> =>
  cache === undefined ? lookup() : Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const hit = cache.get(key, now)
    if (hit !== undefined) return Effect.succeed(Option.some(hit))
    const epoch = cache.epoch()
    return Effect.map(lookup(), (found) => {
      if (Option.isSome(found)) cache.set(key, found.value, now, epoch)
      return found
    })
  })
