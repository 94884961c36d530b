import { Context, type Effect, type Option } from "effect"
import type { InvalidState } from "../errors/DomainErrors.ts"
import type { MerchantId, SettlementId } from "../ids/Ids.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import type { SettlementDestinationEvent } from "../merchant/SettlementDestinationEvent.ts"

/**
 * Crypto settlement destinations. (merchant, asset) is unique: the store answers `InvalidState`.
 * Every change commits with its outbox event (`settlement_destination.changed`) or not at all.
 */
export class SettlementRepository extends Context.Service<SettlementRepository, {
  /** Stores all or none, with their events. */
  readonly insertAll: (
    settlements: ReadonlyArray<CryptoSettlement>,
    events: ReadonlyArray<SettlementDestinationEvent>
  ) => Effect.Effect<void, InvalidState>
  /** A merchant's destinations, oldest first. */
  readonly list: (merchantId: MerchantId) => Effect.Effect<ReadonlyArray<CryptoSettlement>>
  readonly findById: (merchantId: MerchantId, id: SettlementId) => Effect.Effect<Option.Option<CryptoSettlement>>
  /** The destination for a merchant's asset, if one is configured (used by the settlement job). */
  readonly findByAsset: (merchantId: MerchantId, asset: string) => Effect.Effect<Option.Option<CryptoSettlement>>
  /**
   * Stores `settlement` with `event` if its stored destination is still `previousDestination`;
   * answers whether it did (`false` too when it was removed meanwhile).
   */
  readonly update: (
    settlement: CryptoSettlement,
    previousDestination: string,
    event: SettlementDestinationEvent
  ) => Effect.Effect<boolean>
  /** Removes a destination with the event `eventOf` makes of it as it was; answers whether one was removed. */
  readonly remove: (
    merchantId: MerchantId,
    id: SettlementId,
    eventOf: (removed: CryptoSettlement) => SettlementDestinationEvent
  ) => Effect.Effect<boolean>
}>()("@paygate/domain/SettlementRepository") {}
