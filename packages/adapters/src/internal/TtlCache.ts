/**
 * A small in-process cache: entries live `ttlMillis` from when their read started, at most
 * `maxEntries` of them (about the least recently used go first: see below). Time is passed in, so
 * callers read it from `Clock` and tests drive it with `TestClock`.
 *
 * Recency is kept the "second chance" way: a hit only marks its entry as used, and an eviction
 * moves used entries from the front of the map to its back (clearing the mark) until it finds an
 * unused one. So an entry read since an eviction last passed it is passed over once more before it
 * can go; among entries not read, the oldest goes. A hit is read on every authenticated request;
 * moving the entry to the back there (a delete and a set of a freshly hashed key) cost more than
 * the rest of the lookup.
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
  const entries = new Map<K, { readonly value: V; readonly expiresAt: number; used: boolean }>()
  let epoch = 0

  const get = (key: K, now: number) => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now) {
      entries.delete(key)
      return undefined
    }
    entry.used = true
    return entry.value
  }

  // The map's order is the eviction order: the front entry goes, unless it was used since it got there.
  const evict = () => {
    for (const [key, entry] of entries) {
      entries.delete(key)
      if (!entry.used) return
      entry.used = false
      entries.set(key, entry)
    }
  }

  const set = (key: K, value: V, readAt: number, readEpoch: number) => {
    if (ttlMillis <= 0 || maxEntries <= 0 || readEpoch !== epoch) return
    entries.delete(key)
    // Room first: an entry set before evicting would be the first unused one an eviction finds.
    while (entries.size >= maxEntries) evict()
    entries.set(key, { value, expiresAt: readAt + ttlMillis, used: false })
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
