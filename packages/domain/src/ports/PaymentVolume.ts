import { Context, type Effect } from "effect"
import type { PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"

/** Succeeded payments of one fiat currency: how many and their sum in minor units. */
export interface CurrencyVolume {
  readonly currency: string
  readonly count: number
  readonly value: bigint
}

/** Succeeded payments paid in one token (CAIP-19): how many and the token amount in base units. */
export interface AssetVolume {
  readonly asset: string
  readonly count: number
  readonly value: bigint
}

/** One UTC day's payments: created that day, and of those the ones that succeeded. */
export interface DayVolume {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  readonly created: number
  readonly succeeded: number
}

/** What the ledger says the partner's merchants are owed in one asset: paid in, not yet settled or refunded. */
export interface HeldFunds {
  readonly asset: string
  readonly value: bigint
}

/** Settlements of one asset to one destination (CAIP-10): completed, and still under way. */
export interface SettledFunds {
  readonly asset: string
  readonly destination: string
  readonly completed: bigint
  readonly pending: bigint
}

/** What a partner's payments of one mode add up to, over all of them (not a page). */
export interface VolumeSummary {
  readonly currencies: ReadonlyArray<CurrencyVolume>
  readonly assets: ReadonlyArray<AssetVolume>
  readonly days: ReadonlyArray<DayVolume>
  readonly settled: ReadonlyArray<SettledFunds>
}

/** Which payments a summary covers; `days`: the creation days from `since` (Unix ms, a day's start). */
export interface VolumeQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly since: number
}

/** Totals over a partner's payments, computed by the store (every payment, not one page). */
export class PaymentVolume extends Context.Service<PaymentVolume, {
  /** Totals over all payments; `days` only lists the days from `since` that have payments, oldest first. */
  readonly summarize: (query: VolumeQuery) => Effect.Effect<VolumeSummary>
}>()("@paygate/domain/PaymentVolume") {}
