import { Context, type Option } from "effect"

/** Token-bucket limits per credential, per instance (by default 50 requests per second, bursts of 100). */
export interface RateLimitSettings {
  readonly perSecond: number
  readonly burst: number
  /** The most buckets held at once; past it the least recently used one is dropped. */
  readonly maxBuckets?: number
}

/** How the API's HTTP server runs in its process (`ApiServer.layer`); the host reads them from its configuration. */
export class ServerSettings extends Context.Service<ServerSettings, {
  /** The port it listens on. */
  readonly port: number
  /** The address it listens on; `undefined`, every interface. */
  readonly host: string | undefined
  /** Open connections one client address may hold (trusted proxies are not held to it). */
  readonly maxConnectionsPerClient: number
  /** The proxies in front of it: comma-separated addresses and CIDR blocks (`ClientAddress`); none, no proxy is trusted. */
  readonly trustedProxies: Option.Option<string>
  /** The per-credential rate limit (`RateLimiter`). */
  readonly rateLimit: RateLimitSettings
}>()("@paygate/http/ServerSettings") {}
