/**
 * The contract's per-request pipeline for the merchant status read, each step written as plainly
 * as it can be, inside the framework's own hook (one `HttpApiMiddleware`): what the service's
 * pipeline would cost if it cost nothing beyond its work. The floor serves it beside its bare
 * route (`floor.ts`, `GET /floor/pipeline/payments/:id`), so each run measures what the pipeline
 * adds at best, next to what the service's pipeline adds.
 *
 * Per request, as the service does: a request id; the credential headers checked for ASCII;
 * `Api-Key` and `Merchant-Id` required; the key's SHA-256 looked up (keys and merchants cached for
 * 10 s, as the service's credential cache) and compared in constant time; revoked keys, wallet
 * keys and another partner's or mode's merchant refused; `Svc-Version` resolved against the
 * partner's pin; a token bucket per key; the path id checked for well-formed text; the `Request-Id`
 * and `Svc-Version` headers; a request counter and a duration histogram per route and status; and
 * one JSON access log line, written in batches (to stderr, a file in the bench). Not done: what no
 * status request of the bench reaches (dashboard sessions, wallet keys, version downgrades beyond
 * the published list, idempotency).
 */
import { Cause, Context, Effect, type Exit, Layer, Option, Predicate, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, HttpApiMiddleware } from "effect/http-api"
import { SqlClient } from "effect/sql"
import type { unhandled } from "effect/Types"
import { publishedVersions } from "@paygate/domain"
import { hash, randomFillSync, timingSafeEqual } from "node:crypto"

/** Who a request authenticated as, for the handler's ownership check. */
export interface Caller {
  readonly partnerId: string
  readonly mode: string
  readonly merchantId: string
}

export class CurrentCaller extends Context.Service<CurrentCaller, Caller>()("bench/PlainPipeline/CurrentCaller") {}

const refusal = { code: Schema.String, message: Schema.String }
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", refusal, { httpApiStatus: 401 }) {}
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", refusal, { httpApiStatus: 400 }) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", refusal, { httpApiStatus: 429 }) {}

/** The middleware: every step of the pipeline, around the endpoint. */
export class PlainPipeline extends HttpApiMiddleware.Service<PlainPipeline, { provides: CurrentCaller }>()("bench/PlainPipeline", {
  error: [Unauthorized, BadRequest, RateLimited]
}) {}

const printableAscii = /^[\x20-\x7e]*$/
const checkedHeaders = ["api-key", "merchant-id", "app-id", "client-id", "svc-version", "idempotency-key", "csrf-token"]
const ttlMillis = 10_000
const perSecond = 1e9 // raised as the bench raises the service's limit; the bucket still runs
const burst = 1e9

interface Key {
  readonly id: string
  readonly digest: Buffer
  readonly partnerId: string
  readonly mode: string
  readonly pinnedVersion: string
}
interface Merchant {
  readonly partnerId: string
  readonly mode: string
}
interface Cached<V> {
  readonly value: V
  readonly expiresAt: number
}
/** The cached entry while it is fresh. Only found rows are cached, as the service's cache does: a key created elsewhere works at once. */
const fresh = <V>(cached: Cached<V> | undefined, now: number) => (cached !== undefined && cached.expiresAt > now ? cached : undefined)

/** Counters and a log-2 duration histogram per route and status, and the access log lines of one event-loop turn. */
const requests = new Map<string, { count: number; readonly buckets: Float64Array }>()
let lines: Array<string> = []
const flush = () => {
  const chunk = lines.join("\n") + "\n"
  lines = []
  process.stderr.write(chunk)
}

const record = (method: string, route: string, path: string, status: number, requestId: string, millis: number) => {
  const label = `${method} ${route} ${status}`
  let counter = requests.get(label)
  if (counter === undefined) requests.set(label, counter = { count: 0, buckets: new Float64Array(16) })
  counter.count++
  counter.buckets[Math.min(15, Math.floor(Math.log2(millis + 1)))]! += 1
  if (lines.length === 0) setImmediate(flush)
  lines.push(JSON.stringify({
    message: "request",
    level: "INFO",
    timestamp: new Date().toISOString(),
    annotations: { requestId, method, path: path.split("?")[0], status, durationMs: Math.round(millis) }
  }))
}

const statusOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>) => {
  if (exit._tag === "Success") return exit.value.status
  const error = Cause.findErrorOption(exit.cause)
  return Option.isSome(error) && Predicate.hasProperty(error.value, "_tag") ? httpStatus[String(error.value._tag)] ?? 500 : 500
}
const httpStatus: Record<string, number> = { Unauthorized: 401, BadRequest: 400, RateLimited: 429 }

type Refusal = Unauthorized | BadRequest | RateLimited
type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | Refusal>

// Random bytes drawn 4 KiB at a time (as the service's request ids): one system call per 409 ids, not one each.
const entropy = Buffer.alloc(4096)
let drawn = entropy.length
const newRequestId = () => {
  if (drawn + 10 > entropy.length) {
    randomFillSync(entropy)
    drawn = 0
  }
  drawn += 10
  return `req_${entropy.toString("hex", drawn - 10, drawn)}`
}

const refuse = (error: Refusal): Answer => Effect.fail(error)

/** The middleware's layer: reads keys and merchants through the floor's `SqlClient`. */
export const layer = Layer.effect(
  PlainPipeline,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const keys = new Map<string, Cached<Key>>()
    const merchants = new Map<string, Cached<Merchant>>()
    const buckets = new Map<string, { tokens: number; at: number }>()

    const readKey = (digest: string, now: number) =>
      Effect.map(Effect.orDie(
        sql.unsafe<{ id: string; secret_sha256: string; partner_id: string; mode: string; pinned_version: string }>(
          `SELECT k.id, k.secret_sha256, k.partner_id, k.mode, p.pinned_version FROM api_keys k JOIN partners p ON p.id = k.partner_id
           WHERE k.secret_sha256 = $1 AND k.kind = 'partner' AND k.revoked_at IS NULL`,
          [digest]
        )),
        ([row]) => {
          if (row === undefined) return undefined
          const value = { id: row.id, digest: Buffer.from(row.secret_sha256, "hex"), partnerId: row.partner_id, mode: row.mode, pinnedVersion: row.pinned_version }
          keys.set(digest, { value, expiresAt: now + ttlMillis })
          return value
        }
      )
    const readMerchant = (id: string, now: number) =>
      Effect.map(Effect.orDie(sql.unsafe<Merchant & { partner_id: string }>(`SELECT partner_id, mode FROM merchants WHERE id = $1 AND NOT deleted`, [id])), ([row]) => {
        if (row === undefined) return undefined
        const value = { partnerId: row.partner_id, mode: row.mode }
        merchants.set(id, { value, expiresAt: now + ttlMillis })
        return value
      })

    return (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, CurrentCaller>, { endpoint }: { readonly endpoint: HttpApiEndpoint.Top }): Answer =>
      Effect.withFiber((fiber) => {
        const started = performance.now()
        const now = Date.now()
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const requestId = newRequestId()
        const headers = request.headers
        let version: string = publishedVersions[0]

        const authorised = (key: Key | undefined, merchant: Merchant | undefined, merchantId: string, digest: Buffer): Answer => {
          if (key === undefined || !timingSafeEqual(key.digest, digest)) return refuse(new Unauthorized({ code: "invalid_api_key", message: "The API key is not valid." }))
          if (merchant === undefined || merchant.partnerId !== key.partnerId || merchant.mode !== key.mode) {
            return refuse(new Unauthorized({ code: "merchant_not_found", message: "No such merchant." }))
          }
          const asked = headers["svc-version"]
          if (asked !== undefined && !(publishedVersions as ReadonlyArray<string>).includes(asked)) return refuse(new BadRequest({ code: "unknown_api_version", message: "Unknown version." }))
          version = asked ?? key.pinnedVersion
          const bucket = buckets.get(key.id) ?? { tokens: burst, at: now }
          bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond)
          bucket.at = now
          buckets.set(key.id, bucket)
          if (bucket.tokens < 1) return refuse(new RateLimited({ code: "rate_limited", message: "Too many requests." }))
          bucket.tokens -= 1
          return Effect.provideService(httpEffect, CurrentCaller, { partnerId: key.partnerId, mode: key.mode, merchantId })
        }

        const answered = Effect.suspend((): Answer => {
          for (const name of checkedHeaders) {
            const value = headers[name]
            if (value !== undefined && !printableAscii.test(value)) return refuse(new BadRequest({ code: "header_not_ascii", message: `${name} is not ASCII.` }))
          }
          const apiKey = headers["api-key"]
          const merchantId = headers["merchant-id"]
          if (apiKey === undefined || merchantId === undefined) return refuse(new Unauthorized({ code: "missing_api_key", message: "Api-Key and Merchant-Id are required." }))
          const digestHex = hash("sha256", apiKey, "hex")
          const digest = Buffer.from(digestHex, "hex")
          const key = fresh(keys.get(digestHex), now)
          const merchant = fresh(merchants.get(merchantId), now)
          if (key !== undefined && merchant !== undefined) return authorised(key.value, merchant.value, merchantId, digest)
          return Effect.flatMap(
            Effect.all([key !== undefined ? Effect.succeed(key.value) : readKey(digestHex, now), merchant !== undefined ? Effect.succeed(merchant.value) : readMerchant(merchantId, now)]),
            ([k, m]) => authorised(k, m, merchantId, digest)
          )
        })
        return Effect.onExit(
          Effect.map(answered, (response) => HttpServerResponse.setHeaders(response, { "request-id": requestId, "svc-version": version })),
          (exit) =>
            Effect.sync(() =>
              record(request.method, endpoint.path, request.url, statusOf(exit), requestId, performance.now() - started)
            )
        )
      })
  })
)
