import { HttpApi, OpenApi } from "effect/http-api"
import { ApiKeysApi } from "./ApiKeysApi.ts"
import { BalanceApi } from "./BalanceApi.ts"
import { DashboardApi } from "./DashboardApi.ts"
import { ExportsApi } from "./ExportsApi.ts"
import { GatewayApi } from "./GatewayApi.ts"
import { LinksApi } from "./LinksApi.ts"
import { documentSecurity } from "./SecuritySchemes.ts"
import { MerchantPaymentApi } from "./MerchantPaymentApi.ts"
import { MerchantsApi } from "./MerchantsApi.ts"
import { PaymentsApi } from "./PaymentsApi.ts"
import { ReceiptsApi } from "./ReceiptsApi.ts"
import { RefundsApi } from "./RefundsApi.ts"
import { PlansApi, SubscribeApi, SubscriptionsApi } from "./SubscriptionsApi.ts"
import { SystemApi } from "./SystemApi.ts"
import { TeamApi } from "./TeamApi.ts"
import { WebhooksApi } from "./WebhooksApi.ts"
import { X402Api } from "./X402Api.ts"

/** The whole paygate HTTP contract; the server implements it and the typed client derives from it. */
export class PaygateApi extends HttpApi.make("paygate")
  .add(MerchantPaymentApi)
  .add(PaymentsApi)
  .add(RefundsApi)
  .add(LinksApi)
  .add(PlansApi)
  .add(SubscriptionsApi)
  .add(BalanceApi)
  .add(ReceiptsApi)
  .add(ExportsApi)
  .add(MerchantsApi)
  .add(GatewayApi)
  .add(SubscribeApi)
  .add(WebhooksApi)
  .add(ApiKeysApi)
  .add(TeamApi)
  .add(SystemApi)
  .add(DashboardApi)
  .add(X402Api)
  .annotate(OpenApi.Title, "paygate")
  .annotate(OpenApi.Version, "2026-02-18")
  .annotate(OpenApi.Description, "Crypto payment gateway and merchant checkout service.")
  .annotate(OpenApi.Transform, documentSecurity)
  // Bodies are strict, as their schemas say (additionalProperties: false): server/UnknownFields.ts.
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
{}
