/**
 * A Promise client for merchant backends in plain Node or TypeScript, derived from the same
 * {@link PaygateApi} as the Effect client (`client.ts`): the same groups, operations, requests and
 * decoded responses, each operation returning a `Promise`. A contract error rejects with a
 * {@link PaygateError} carrying its code (`payment_not_found`, …) and HTTP status.
 *
 * ```ts
 * const paygate = createPaygateClient({ baseUrl: "http://localhost:3000", apiKey: "sk_test_…" })
 * const payment = await paygate.payments.create(
 *   { payload: { merchantId: "mer_…", amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "order-1" } },
 *   { idempotencyKey: "order-1" }
 * )
 * ```
 *
 * @module
 */
import { codeOfTag, type ErrorCode, statusOf } from "./api/ErrorCodes.ts"
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { Simplify } from "effect/Types"
import type { PaygateApi } from "./api/Api.ts"
import { makePaygateClient, type PaygateClientOptions, RequestHeaders } from "./client.ts"

/** A contract error response from the service: `{"code", "message"}` with its HTTP status. */
export class PaygateError extends Error {
  override readonly name = "PaygateError"
  /** The contract's error code, e.g. `payment_not_found`. */
  readonly code: ErrorCode
  /** The HTTP status it came with. */
  readonly status: number
  constructor(code: ErrorCode, status: number, message: string) {
    super(message)
    this.code = code
    this.status = status
  }
}

/** Per-call options of the Promise client. */
export interface CallOptions {
  /** Sent as `Idempotency-Key` (API rules §5): retrying with the same key is safe. */
  readonly idempotencyKey?: string | undefined
  /** Sent as `Merchant-Id` for this call (Merchant API), instead of the client's. */
  readonly merchantId?: string | undefined
  /** Any other headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** One operation: the request of the Effect client's decoded-only mode, answering a `Promise` of its success. */
type Operation<Endpoint extends HttpApiEndpoint.ConstraintRequest> = (
  request: Simplify<
    HttpApiEndpoint.ClientRequest<Endpoint["~Params"], Endpoint["~Query"], Endpoint["~Payload"], Endpoint["~Headers"], "decoded-only", never>
  >,
  options?: CallOptions
) => Promise<HttpApiClient.SuccessType<Endpoint["~Success"]>>

type GroupOperations<Group extends HttpApiGroup.Constraint> = Group["endpoints"] extends
  infer Endpoints extends Readonly<Record<string, HttpApiEndpoint.ConstraintRequest>>
  ? { readonly [Name in keyof Endpoints]: Operation<Endpoints[Name]> }
  : never

/** Every operation of {@link PaygateApi}, grouped as in the Effect client, returning a `Promise` of its decoded response. */
export type PaygatePromiseClient = typeof PaygateApi extends HttpApi.HttpApi<infer _Id, infer Groups>
  ? { readonly [Group in Groups as HttpApiGroup.Identifier<Group>]: GroupOperations<Group> }
  : never

const callHeaders = (options: CallOptions | undefined): Record<string, string> => ({
  ...(options?.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }),
  ...(options?.merchantId === undefined ? {} : { "merchant-id": options.merchantId }),
  ...options?.headers
})

/** A contract error as a {@link PaygateError}; anything else (no connection, a bad response) as a plain `Error`. */
const rejection = (cause: Cause.Cause<unknown>): Error => {
  const failure = cause.reasons.find(Cause.isFailReason)?.error
  const tag = (failure as { readonly _tag?: unknown } | undefined)?._tag
  const code = typeof tag === "string" ? codeOfTag(tag) : undefined
  if (code !== undefined) return new PaygateError(code, statusOf(code), (failure as { readonly message: string }).message)
  const error = Cause.squash(cause)
  return error instanceof Error ? error : new Error(String(error))
}

/**
 * A Promise client over `fetch`: requests go to `options.baseUrl` with the credentials of
 * `options` (partner `apiKey`, `merchantId`, `svcVersion`) and those of each call's {@link CallOptions}.
 */
export const createPaygateClient = (options: PaygateClientOptions): PaygatePromiseClient => {
  const client = Effect.runSync(makePaygateClient(options).pipe(Effect.provide(FetchHttpClient.layer)))
  const groups = Object.entries(client as unknown as Record<string, Record<string, (request: unknown) => Effect.Effect<unknown, unknown>>>)
  return Object.fromEntries(groups.map(([group, operations]) => [
    group,
    Object.fromEntries(Object.entries(operations).map(([name, operation]) => [
      name,
      (request: unknown, call?: CallOptions) =>
        Effect.runPromiseExit(
          operation(request).pipe(Effect.updateService(RequestHeaders, (current) => ({ ...current, ...callHeaders(call) })))
        ).then((exit) => {
          if (Exit.isSuccess(exit)) return exit.value
          throw rejection(exit.cause)
        })
    ]))
  ])) as unknown as PaygatePromiseClient
}
