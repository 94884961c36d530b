/**
 * @paygate/http: the HTTP API of paygate (`effect/http-api`). The contract ({@link PaygateApi}),
 * the routes that serve it ({@link ServiceRoutes}), the API as a process serves it (`ApiServer.layer`)
 * and typed clients derived from the contract (Effect, and Promise with a webhook verification helper).
 * Its settings and what else it asks of its host (`settings/`, `Readiness`, `RequestIdBytes`) are
 * services the composition root provides.
 *
 * @module
 */
export { PaygateApi } from "./api/Api.ts"
export { ServiceRoutes, routerConfig } from "./ServiceRoutes.ts"
export * as ApiServer from "./ApiServer.ts"
export * from "./client.ts"
export * from "./api/ErrorCodes.ts"
export * as Wire from "./api/wire/index.ts"
export * from "./PromiseClient.ts"
export * from "./WebhookVerification.ts"
export * as Tracing from "./observability/Tracing.ts"
export * as ClientAddress from "./server/ClientAddress.ts"
export { RateLimiter } from "./server/RateLimiter.ts"
export { Readiness } from "./server/Readiness.ts"
export { RequestIdBytes } from "./server/RequestId.ts"
export { RequestLogLevel } from "./server/RequestMiddleware.ts"
export { CheckoutSettings } from "./settings/CheckoutSettings.ts"
export { Environment } from "./settings/Environment.ts"
export { MetricsToken } from "./settings/MetricsToken.ts"
export { OtlpSettings } from "./settings/OtlpSettings.ts"
export { type RateLimitSettings, ServerSettings } from "./settings/ServerSettings.ts"
export { SessionSettings } from "./settings/SessionSettings.ts"
export { WalletOrigins } from "./settings/WalletOrigins.ts"
