import { Context } from "effect"

/** Tunables of the payment use cases; the defaults are the contract's. */
export interface PaymentSettingsShape {
  /** How long a new payment waits for the buyer (API rules §4: 15 minutes). */
  readonly lifetimeSeconds: number
  /** How long a rate quote stays valid (API rules §4: 5 minutes). */
  readonly quoteTtlSeconds: number
}

/** Payment tunables, overridable per host; read when `Payments` and the quoting are built, like their ports. */
export const PaymentSettings = Context.Reference<PaymentSettingsShape>("@paygate/domain/PaymentSettings", {
  defaultValue: () => ({ lifetimeSeconds: 15 * 60, quoteTtlSeconds: 5 * 60 })
})
