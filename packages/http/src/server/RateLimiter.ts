import { Clock, Context, Effect, Layer } from "effect"
import { type RateLimitSettings, ServerSettings } from "../settings/ServerSettings.ts"

/** Buckets held when the settings name no bound: far more callers than one process serves within a bucket's refill time. */
export const defaultMaxBuckets = 100_000

interface Bucket {
  tokens: number
  at: number
}

/**
 * Per-credential request rate limiting, in bounded memory. A bucket that has refilled is the same
 * as none, so it may go; each new bucket looks at the two oldest places of the map (insertion
 * order): a refilled bucket there is dropped, one still in use moves to the back, and past
 * `maxBuckets` the oldest goes regardless (its caller starts over with a full burst). A request of
 * a known key only reads its bucket: no reordering on the hot path.
 */
export class RateLimiter extends Context.Service<RateLimiter, {
  /** Takes one token for `key` (a credential's id: short): `undefined` when allowed, else the seconds to wait (`Retry-After`). */
  readonly take: (key: string) => Effect.Effect<number | undefined>
  /** How many buckets are held now. */
  readonly size: Effect.Effect<number>
}>()("@paygate/http/RateLimiter") {
  /** A limiter with explicit settings. */
  static readonly make = (settings: RateLimitSettings) =>
    Layer.sync(RateLimiter, () => {
      const maxBuckets = Math.max(1, settings.maxBuckets ?? defaultMaxBuckets)
      // After this long unused, a bucket is full again.
      const refillMillis = (settings.burst / settings.perSecond) * 1000
      const buckets = new Map<string, Bucket>()
      const tidy = (now: number) => {
        for (let i = 0; i < 2; i++) {
          const oldest = buckets.entries().next()
          if (oldest.done === true) return
          const [key, bucket] = oldest.value
          buckets.delete(key)
          if (buckets.size < maxBuckets && now - bucket.at < refillMillis) buckets.set(key, bucket)
        }
      }
      return RateLimiter.of({
        take: (key) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            let bucket = buckets.get(key)
            if (bucket === undefined) {
              bucket = { tokens: settings.burst, at: now }
              buckets.set(key, bucket)
              tidy(now)
            }
            bucket.tokens = Math.min(settings.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * settings.perSecond)
            bucket.at = now
            if (bucket.tokens >= 1) {
              bucket.tokens -= 1
              return undefined
            }
            return Math.max(1, Math.ceil((1 - bucket.tokens) / settings.perSecond))
          }),
        size: Effect.sync(() => buckets.size)
      })
    })

  /** With the server's settings. */
  static readonly layer = Layer.unwrap(
    Effect.gen(function*() {
      return RateLimiter.make((yield* ServerSettings).rateLimit)
    })
  )
}
