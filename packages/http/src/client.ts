/**
 * A typed client for the paygate HTTP API, derived from {@link PaygateApi}: every operation,
 * its request and its responses (errors decode to their contract error classes) come from the
 * contract itself, so client and server cannot drift apart.
 *
 * ```ts
 * const program = Effect.gen(function*() {
 *   const client = yield* PaygateClient
 *   const merchant = yield* client.merchants.create({ payload: { merchantName: "Shop" } }).pipe(
 *     withIdempotencyKey("merchant-shop-1")
 *   )
 *   return yield* client.payments.create({
 *     payload: { merchantId: merchant.merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "order-1" }
 *   })
 * }).pipe(Effect.provide(PaygateClient.layer({ baseUrl: "https://api.example.com", apiKey: "sk_test_…" })))
 * ```
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { PaygateApi } from "./api/Api.ts"

/** Where the client sends requests and the credentials it sends with each. */
export interface PaygateClientOptions {
  /** The service's base address, e.g. `https://api.example.com`. */
  readonly baseUrl: string | URL
  /** Partner secret key (`sk_live_…` / `sk_test_…`), sent as `Api-Key`. */
  readonly apiKey?: string | undefined
  /** Sent as `Merchant-Id` (Merchant API, and `GET /v1/merchants/payments`). */
  readonly merchantId?: string | undefined
  /** Sent as `Idempotency-Key` on every request; prefer {@link withIdempotencyKey} per request. */
  readonly idempotencyKey?: string | undefined
  /** Sent as `Svc-Version`; without it the account's pinned version applies. */
  readonly svcVersion?: string | undefined
}

/** The operations of the API, grouped as in {@link PaygateApi}: `client.payments.create(…)`, … */
export type PaygateApiClient = HttpApiClient.ForApi<typeof PaygateApi>

/** Extra headers for the requests made by an effect; see {@link withRequestHeaders}. */
export const RequestHeaders = Context.Reference<Readonly<Record<string, string>>>("@paygate/http/client/RequestHeaders", {
  defaultValue: () => ({})
})

/** Adds headers to every request the wrapped effect makes through a paygate client. */
export const withRequestHeaders = (headers: Readonly<Record<string, string>>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateService(effect, RequestHeaders, (current) => ({ ...current, ...headers }))

/** Sends `Idempotency-Key: key` with the requests of the wrapped effect (API rules §5). */
export const withIdempotencyKey = (key: string) => withRequestHeaders({ "idempotency-key": key })

const definedHeaders = (options: PaygateClientOptions): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (options.apiKey !== undefined) headers["api-key"] = options.apiKey
  if (options.merchantId !== undefined) headers["merchant-id"] = options.merchantId
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
  if (options.svcVersion !== undefined) headers["svc-version"] = options.svcVersion
  return headers
}

/**
 * Makes a client over the `HttpClient` in context: requests go to `baseUrl` with the
 * credential headers of `options` (unless the operation sets the header itself) and those of
 * {@link RequestHeaders}.
 */
export const makePaygateClient = (options: PaygateClientOptions) => {
  const headers = definedHeaders(options)
  return HttpApiClient.make(PaygateApi, {
    baseUrl: options.baseUrl,
    transformClient: (client: HttpClient.HttpClient) =>
      HttpClient.mapRequestEffect(client, (request) =>
        Effect.map(Effect.service(RequestHeaders), (extra) => {
          // The options' headers are defaults: an operation's own headers (e.g. `merchant-id`) win.
          const defaults = Object.fromEntries(Object.entries(headers).filter(([name]) => request.headers[name] === undefined))
          return HttpClientRequest.setHeaders(request, { ...defaults, ...extra })
        }))
  })
}

/** The paygate client as a service. */
export class PaygateClient extends Context.Service<PaygateClient, PaygateApiClient>()("@paygate/http/PaygateClient") {
  /** A client over the given `HttpClient` layer's transport. */
  static readonly layerWith = (options: PaygateClientOptions) => Layer.effect(PaygateClient, makePaygateClient(options))

  /** A client over `fetch`. */
  static readonly layer = (options: PaygateClientOptions): Layer.Layer<PaygateClient> =>
    PaygateClient.layerWith(options).pipe(Layer.provide(FetchHttpClient.layer))
}
