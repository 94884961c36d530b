import { Context } from "effect"
import type { Mode } from "../payment/Payment.ts"

/** The fiat currencies a payment can be created in, as the host's configuration decides. */
export interface PayableCurrenciesShape {
  /**
   * Per mode, the ISO 4217 codes some configured token on a network of that mode (`NetworkModes`)
   * can be priced in (its peg, its price feed's currency, or an exchange-rate feed it has); empty
   * when no network of that mode is configured; `undefined` when the host sets no such limit (e.g.
   * no token is configured yet).
   */
  readonly currencies: Readonly<Record<Mode, ReadonlySet<string>>> | undefined
}

/**
 * Which currencies `Payments.create` accepts per mode: a payment in any other currency, or of a
 * mode no configured network serves, could never be offered to a buyer, so it is refused at
 * creation (`params_validation`) instead of waiting for an option that never comes. Default: no limit. Read when `Payments` is built, like its ports.
 */
export const PayableCurrencies = Context.Reference<PayableCurrenciesShape>("@paygate/domain/PayableCurrencies", {
  defaultValue: () => ({ currencies: undefined })
})
