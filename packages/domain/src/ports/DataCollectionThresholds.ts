import { Context, type Effect, type Option } from "effect"
import type { PartnerId } from "../ids/Ids.ts"

/** Each partner's data collection threshold (API rules §10), a setting of the partner account. */
export class DataCollectionThresholds extends Context.Service<DataCollectionThresholds, {
  /**
   * The threshold the partner set (a plain decimal in major units of the payment's currency), or
   * none when it uses the contract's default.
   */
  readonly thresholdOf: (partnerId: PartnerId) => Effect.Effect<Option.Option<string>>
}>()("@paygate/domain/DataCollectionThresholds") {}
