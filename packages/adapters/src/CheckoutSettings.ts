import { Config, Context, Effect, Layer } from "effect"

/** Public addresses the API hands out (service-spec "Other addresses"). */
export class CheckoutSettings extends Context.Service<CheckoutSettings, {
  /** `{checkout_url}`: `gatewayUrl` = `{checkout_url}/{paymentId}`. */
  readonly checkoutUrl: string
  /** `{data_collection_url}`: options link to `{data_collection_url}?paymentId=…&account=…`. */
  readonly dataCollectionUrl: string
}>()("@paygate/adapters/CheckoutSettings") {
  /**
   * From `CHECKOUT_URL` and `DATA_COLLECTION_URL`, defaulting to this server's `/checkout` and
   * `/collect` on `PUBLIC_URL` or `http://localhost:PORT`.
   */
  static readonly layer = Layer.effect(
    CheckoutSettings,
    Effect.gen(function*() {
      const port = yield* Config.Port("PORT").pipe(Config.withDefault(3000))
      const publicUrl = (yield* Config.String("PUBLIC_URL").pipe(Config.withDefault(`http://localhost:${port}`))).replace(/\/$/, "")
      const checkoutUrl = yield* Config.String("CHECKOUT_URL").pipe(Config.withDefault(`${publicUrl}/checkout`))
      const dataCollectionUrl = yield* Config.String("DATA_COLLECTION_URL").pipe(Config.withDefault(`${publicUrl}/collect`))
      return CheckoutSettings.of({ checkoutUrl: checkoutUrl.replace(/\/$/, ""), dataCollectionUrl: dataCollectionUrl.replace(/\/$/, "") })
    })
  )
}
