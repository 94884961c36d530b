/**
 * @paygate/http: the HTTP API of paygate (`effect/http-api`). The contract ({@link PaygateApi}),
 * the routes that serve it ({@link AppRoutes}), the API as a process serves it (`ApiServer.layer`)
 * and typed clients derived from the contract (Effect, and Promise with a webhook verification helper).
 *
 * @module
 */
export { PaygateApi } from "./api/Api.ts"
export { AppRoutes, routerConfig } from "./App.ts"
export * as ApiServer from "./ApiServer.ts"
export * from "./client.ts"
export * from "./api/ErrorCodes.ts"
export * as Wire from "./api/wire/index.ts"
export * from "./PromiseClient.ts"
export * from "./WebhookVerification.ts"
export * as Tracing from "./observability/Tracing.ts"
export * as ClientAddress from "./server/ClientAddress.ts"
export { RateLimiter, type RateLimitSettings } from "./server/RateLimiter.ts"
export { SqlReadiness } from "./server/SqlReadiness.ts"
export { RequestLogLevel } from "./server/RequestMiddleware.ts"
