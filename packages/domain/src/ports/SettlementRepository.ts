import { Context, type Effect, type Option } from "effect"
import type { InvalidState } from "../errors/ApiErrors.ts"
import type { MerchantId, SettlementId } from "../ids/Ids.ts"
import type { CryptoSettlement } from "../merchant/CryptoSettlement.ts"

/** Crypto settlement destinations. (merchant, asset) is unique: the store answers `InvalidState`. */
export class SettlementRepository extends Context.Service<SettlementRepository, {
  /** Stores all or none. */
  readonly insertAll: (settlements: ReadonlyArray<CryptoSettlement>) => Effect.Effect<void, InvalidState>
  /** A merchant's destinations, oldest first. */
  readonly list: (merchantId: MerchantId) => Effect.Effect<ReadonlyArray<CryptoSettlement>>
  readonly findById: (merchantId: MerchantId, id: SettlementId) => Effect.Effect<Option.Option<CryptoSettlement>>
  /** The destination for a merchant's asset, if one is configured (used by the settlement job). */
  readonly findByAsset: (merchantId: MerchantId, asset: string) => Effect.Effect<Option.Option<CryptoSettlement>>
  readonly update: (settlement: CryptoSettlement) => Effect.Effect<void>
  /** Answers whether a destination was removed. */
  readonly remove: (merchantId: MerchantId, id: SettlementId) => Effect.Effect<boolean>
}>()("@paygate/domain/SettlementRepository") {}
