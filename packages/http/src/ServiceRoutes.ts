import { Layer } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PaygateApi } from "./api/Api.ts"
import { DashboardRoutes } from "./dashboard/DashboardRoutes.ts"
import { ClaimRoutes } from "./portal/ClaimRoutes.ts"
import { LinkRoutes } from "./portal/LinkRoutes.ts"
import { PortalRoutes } from "./portal/PortalRoutes.ts"
import { SubscriptionRoutes } from "./portal/SubscriptionRoutes.ts"
import { ApiKeysHandlers } from "./server/ApiKeysHandlers.ts"
import { BalanceHandlers } from "./server/BalanceHandlers.ts"
import { GatewayAuthLive, MerchantAuthLive, PartnerAuthLive } from "./server/AuthMiddleware.ts"
import { DashboardGuardLive, DashboardHandlers } from "./server/DashboardHandlers.ts"
import { DashboardSessions } from "./server/DashboardSessions.ts"
import { DocsPage } from "./server/DocsPage.ts"
import { GatewayHandlers } from "./server/GatewayHandlers.ts"
import { LinksHandlers } from "./server/LinksHandlers.ts"
import { MerchantPaymentHandlers } from "./server/MerchantPaymentHandlers.ts"
import { MerchantsHandlers } from "./server/MerchantsHandlers.ts"
import { MetricsLive, RouteMetrics } from "./server/MetricsEndpoint.ts"
import { maxPathIdLength } from "./server/PathIds.ts"
import { PaymentsHandlers } from "./server/PaymentsHandlers.ts"
import { RequestMiddleware } from "./server/RequestMiddleware.ts"
import { ExportsHandlers } from "./server/ExportsHandlers.ts"
import { ReceiptsHandlers } from "./server/ReceiptsHandlers.ts"
import { RefundsHandlers } from "./server/RefundsHandlers.ts"
import { PlansHandlers, SubscribeHandlers, SubscriptionsHandlers } from "./server/SubscriptionHandlers.ts"
import { SystemHandlers } from "./server/SystemHandlers.ts"
import { TeamHandlers } from "./server/TeamHandlers.ts"
import { WebhooksHandlers } from "./server/WebhooksHandlers.ts"
import { X402Handlers } from "./server/X402Handlers.ts"
import { X402PaymentRoutes } from "./server/X402PaymentRoutes.ts"

/**
 * Every HTTP route of paygate: the API (with `/openapi.json`), the `/docs` page (Scalar,
 * bundled: no CDN), the hosted checkout and data collection pages, and the global fallback.
 * Needs the use cases, stores and settings.
 */
export const ServiceRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(PaygateApi, { openapiPath: "/openapi.json" }).pipe(
    // Labels request metrics with the matched route template (server/MetricsEndpoint.ts).
    Layer.provide(RouteMetrics),
    Layer.provide([MerchantPaymentHandlers, SystemHandlers]),
    Layer.provide([PaymentsHandlers, RefundsHandlers, ReceiptsHandlers, ExportsHandlers, MerchantsHandlers, BalanceHandlers]),
    Layer.provide(GatewayHandlers),
    Layer.provide(WebhooksHandlers),
    Layer.provide(X402Handlers),
    Layer.provide(LinksHandlers),
    Layer.provide([PlansHandlers, SubscriptionsHandlers, SubscribeHandlers]),
    Layer.provide([DashboardHandlers, ApiKeysHandlers, TeamHandlers]),
    Layer.provide([PartnerAuthLive, MerchantAuthLive, GatewayAuthLive, DashboardGuardLive]),
    // Sign-in, sessions and the partner API's cookie authentication (server/DashboardSessions.ts).
    Layer.provide(DashboardSessions.layer)
  ),
  // The API reference, built on its first request (server/DocsPage.ts).
  DocsPage,
  // The hosted checkout portal and data collection page (portal/PortalRoutes.ts).
  PortalRoutes,
  // Payment links' public pages (portal/LinkRoutes.ts).
  LinkRoutes,
  // Subscription plans' checkouts and payers' subscription pages (portal/SubscriptionRoutes.ts).
  SubscriptionRoutes,
  // Refund claim pages (portal/ClaimRoutes.ts).
  ClaimRoutes,
  // The partner dashboard's pages (dashboard/DashboardRoutes.ts).
  DashboardRoutes,
  // Every payment's x402 address (server/X402PaymentRoutes.ts).
  X402PaymentRoutes,
  // GET /metrics (Prometheus text format).
  MetricsLive,
  // Around every request: request id, body limit, contract errors, Svc-Version, draining, request metrics, access log.
  RequestMiddleware
)

/**
 * Router settings: path parameters may be long (find-my-way's default of 100 characters would
 * turn an over-long payment id into "no route" instead of its not-found code); longer ones reach
 * their route as ids that cannot be (server/PathIds.ts). Paths are case-sensitive as RFC 9110
 * says: find-my-way's case-insensitive default lower-cases the decoded path, and a character whose
 * lower case is longer ("İ") then shifts every later segment, so `/v1/receipts/%C4%B0/refund`
 * matched no route.
 */
export const routerConfig = { maxParamLength: maxPathIdLength, caseSensitive: true } as const

/**
 * What the routes read at request time from the context they are served in: nothing, since every
 * route took its services when it was built (a handler reading one per request would add it here).
 * The API process relies on it: its requests run without the application's services
 * (`ApiServer.ts`, `server/HandlerGroup.ts`); `packages/http/test/RequestContext.test.ts` checks it
 * is `never`. References with defaults (settings) do not show here: the use cases read them when built.
 */
export type RequestRequirements =
  | HttpRouter.Request.Only<"Requires", Layer.Services<typeof ServiceRoutes>>
  | HttpRouter.Request.Only<"GlobalRequires", Layer.Services<typeof ServiceRoutes>>
