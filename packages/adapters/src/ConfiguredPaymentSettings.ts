/**
 * The domain's `PaymentSettings` with the payment lifetime of `PAYMENT_LIFETIME_SECONDS` (see
 * docs/configuration.md); the quote lifetime stays the domain's default.
 *
 * @module
 */
import { PaymentSettings } from "@paygate/domain"
import { type Config, Effect, Layer } from "effect"
import * as Configuration from "./Configuration.ts"

/** `PaymentSettings` read from the environment. */
export const layer: Layer.Layer<never, Config.ConfigError> = Layer.effect(
  PaymentSettings,
  Effect.gen(function*() {
    const defaults = yield* PaymentSettings
    return { ...defaults, lifetimeSeconds: yield* Configuration.paymentLifetimeSeconds }
  })
)
