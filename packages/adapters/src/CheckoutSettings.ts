import { Context, Effect, Layer, Option } from "effect"
import * as Configuration from "./Configuration.ts"

/** Public addresses the API hands out (service-spec "Other addresses"). */
export class CheckoutSettings extends Context.Service<CheckoutSettings, {
  /** `{checkout_url}`: `gatewayUrl` = `{checkout_url}/{paymentId}`. */
  readonly checkoutUrl: string
  /** `{data_collection_url}`: options link to `{data_collection_url}?paymentId=…&account=…`. */
  readonly dataCollectionUrl: string
  /** `{x402_url}`: a payment's x402 address is `{x402_url}/{paymentId}` (on `PUBLIC_URL`). */
  readonly x402Url: string
  /** Where payment links' pages are: a link's page is `{link_url}/{linkId}` (on `PUBLIC_URL`). */
  readonly linkUrl: string
  /** Where refund claim pages are: a claim link is `{refund_claim_url}/{token}` (on `PUBLIC_URL`). */
  readonly refundClaimUrl: string
}>()("@paygate/adapters/CheckoutSettings") {
  /**
   * From `CHECKOUT_URL` and `DATA_COLLECTION_URL`, defaulting to this server's `/checkout` and
   * `/collect` on `PUBLIC_URL` or `http://localhost:PORT`.
   */
  static readonly layer = Layer.effect(
    CheckoutSettings,
    Effect.gen(function*() {
      const port = yield* Configuration.port
      const publicUrl = Option.getOrElse(yield* Configuration.publicUrl, () => `http://localhost:${port}`).replace(/\/$/, "")
      const checkoutUrl = Option.getOrElse(yield* Configuration.checkoutUrl, () => `${publicUrl}/checkout`)
      const dataCollectionUrl = Option.getOrElse(yield* Configuration.dataCollectionUrl, () => `${publicUrl}/collect`)
      return CheckoutSettings.of({
        checkoutUrl: checkoutUrl.replace(/\/$/, ""),
        dataCollectionUrl: dataCollectionUrl.replace(/\/$/, ""),
        x402Url: `${publicUrl}/v1/x402/payments`,
        linkUrl: `${publicUrl}/l`,
        refundClaimUrl: `${publicUrl}/r`
      })
    })
  )
}
