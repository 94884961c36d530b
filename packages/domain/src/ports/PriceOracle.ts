import { Context, type Effect, type Option } from "effect"
import type { Pricing } from "../quote/Quote.ts"

/** Prices tokens in fiat currencies. */
export class PriceOracle extends Context.Service<PriceOracle, {
  /**
   * How `asset` (CAIP-19) is priced in `currency` (ISO 4217), or none when the service cannot
   * quote the pair: then no option is offered for it.
   */
  readonly pricing: (currency: string, asset: string) => Effect.Effect<Option.Option<Pricing>>
}>()("@paygate/domain/PriceOracle") {}
