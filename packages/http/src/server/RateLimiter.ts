import { Clock, Context, Effect, Layer } from "effect"
import { Configuration } from "@paygate/adapters"

/** Token-bucket limits per credential, per instance (contract §11: 50 req/s sustained, burst 100). */
export interface RateLimitSettings {
  readonly perSecond: number
  readonly burst: number
}

interface Bucket {
  tokens: number
  at: number
}

/** Per-credential request rate limiting. */
export class RateLimiter extends Context.Service<RateLimiter, {
  /** Takes one token for `key`: `undefined` when allowed, else the seconds to wait (`Retry-After`). */
  readonly take: (key: string) => Effect.Effect<number | undefined>
}>()("@paygate/http/RateLimiter") {
  /** A limiter with explicit settings. */
  static readonly make = (settings: RateLimitSettings) =>
    Layer.sync(RateLimiter, () => {
      const buckets = new Map<string, Bucket>()
      return RateLimiter.of({
        take: (key) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const bucket = buckets.get(key) ?? { tokens: settings.burst, at: now }
            bucket.tokens = Math.min(settings.burst, bucket.tokens + ((now - bucket.at) / 1000) * settings.perSecond)
            bucket.at = now
            buckets.set(key, bucket)
            if (bucket.tokens >= 1) {
              bucket.tokens -= 1
              return undefined
            }
            return Math.max(1, Math.ceil((1 - bucket.tokens) / settings.perSecond))
          })
      })
    })

  /** Settings from `RATE_LIMIT_PER_SECOND` (default 50) and `RATE_LIMIT_BURST` (default 100). */
  static readonly layer = Layer.unwrap(
    Effect.gen(function*() {
      return RateLimiter.make(yield* Configuration.rateLimit)
    })
  )
}
