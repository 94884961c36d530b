import { Schema } from "effect"
import { MerchantId, SettlementId } from "../ids/Ids.ts"

/** Where succeeded payments of one asset are forwarded: a CAIP-10 account on the asset's chain. */
export class CryptoSettlement extends Schema.Class<CryptoSettlement>("paygate/CryptoSettlement")({
  id: SettlementId,
  merchantId: MerchantId,
  /** CAIP-19 asset id (checksummed for eip155). */
  asset: Schema.String,
  /** CAIP-10 account on the same chain as `asset`. */
  destination: Schema.String,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int,
  /**
   * Unix milliseconds from which payments are forwarded to `destination`: set when the destination
   * is added or changed (`SettlementDelay`). Until then payments stay at the collection address.
   */
  usableFrom: Schema.Int
}) {}

/** Whether payments may be forwarded to `settlement` at `millis`. */
export const isUsable = (settlement: CryptoSettlement, millis: number): boolean => settlement.usableFrom <= millis
