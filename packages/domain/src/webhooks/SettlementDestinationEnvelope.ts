import { Schema } from "effect"
import { type AssetId, assetChainId } from "../caip/index.ts"
import { SettlementDestinationChange, type SettlementDestinationEvent, settlementDestinationChanged } from "../merchant/SettlementDestinationEvent.ts"
import { NonNegativeInt } from "../wire/NonNegativeInt.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

/**
 * The body of a `settlement_destination.changed` webhook: the webhook envelope (docs/api-rules.md, webhooks) whose
 * `data` is the destination as the partner API shows it (times in Unix seconds), with its merchant
 * and CAIP-2 `network`, what changed, and the account it pointed to before a `changed`.
 */
export const SettlementDestinationEnvelope = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal(settlementDestinationChanged),
  apiVersion: Schema.String,
  createdAt: NonNegativeInt,
  data: Schema.Struct({
    settlementDestination: Schema.Struct({
      id: Schema.String,
      merchantId: Schema.String,
      /** CAIP-19 asset forwarded to `destination`. */
      asset: Schema.String,
      /** CAIP-2 chain of `asset` and `destination`. */
      network: Schema.String,
      /** CAIP-10 account. */
      destination: Schema.String,
      createdAt: NonNegativeInt,
      updatedAt: NonNegativeInt,
      /** From when payments are forwarded to `destination` (Unix seconds). */
      usableFrom: NonNegativeInt
    }),
    change: SettlementDestinationChange,
    previousDestination: Schema.NullOr(Schema.String)
  })
}).annotate({ identifier: "SettlementDestinationWebhookEnvelope" })
/** A `settlement_destination.changed` webhook body. */
export type SettlementDestinationEnvelope = typeof SettlementDestinationEnvelope.Type

/** The envelope of a settlement destination event for an endpoint pinned to `apiVersion`. */
export const settlementDestinationEnvelope = (event: SettlementDestinationEvent, apiVersion: string): SettlementDestinationEnvelope => {
  const s = event.settlement
  return {
    id: event.id,
    type: event.type,
    apiVersion,
    createdAt: event.createdAt,
    data: {
      settlementDestination: {
        id: s.id,
        merchantId: s.merchantId,
        asset: s.asset,
        // Stored assets are canonical CAIP-19 ids.
        network: assetChainId(s.asset as AssetId),
        destination: s.destination,
        createdAt: seconds(s.createdAt),
        updatedAt: seconds(s.updatedAt),
        usableFrom: seconds(s.usableFrom)
      },
      change: event.change,
      previousDestination: event.previousDestination
    }
  }
}
