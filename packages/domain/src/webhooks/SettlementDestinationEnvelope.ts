import { type AssetId, assetChainId } from "../caip/index.ts"
import type { SettlementDestinationChange, SettlementDestinationEvent, settlementDestinationChanged } from "../merchant/SettlementDestinationEvent.ts"

const seconds = (millis: number) => Math.floor(millis / 1000)

/**
 * The body of a `settlement_destination.changed` webhook: the webhook envelope (docs/api-rules.md, webhooks) whose
 * `data` is the destination as the partner API shows it (times in Unix seconds), with its merchant
 * and CAIP-2 `network`, what changed, and the account it pointed to before a `changed`.
 */
export interface SettlementDestinationEnvelope {
  readonly id: string
  readonly type: typeof settlementDestinationChanged
  readonly apiVersion: string
  readonly createdAt: number
  readonly data: {
    readonly settlementDestination: {
      readonly id: string
      readonly merchantId: string
      /** CAIP-19 asset forwarded to `destination`. */
      readonly asset: string
      /** CAIP-2 chain of `asset` and `destination`. */
      readonly network: string
      /** CAIP-10 account. */
      readonly destination: string
      readonly createdAt: number
      readonly updatedAt: number
      /** From when payments are forwarded to `destination` (Unix seconds). */
      readonly usableFrom: number
    }
    readonly change: SettlementDestinationChange
    readonly previousDestination: string | null
  }
}

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
