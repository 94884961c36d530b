/** What an export lists: payments, or the payouts of one kind (settlements, refunds). */
export type ExportDataset = "payments" | "settlements" | "refunds"

/** The datasets, in the order the API lists them. */
export const exportDatasets: ReadonlyArray<ExportDataset> = ["payments", "settlements", "refunds"]

/**
 * One record of an export as the store reads it: amounts exact (fiat in the currency's minor units,
 * tokens and gas in base units), times in Unix milliseconds.
 */
export interface ExportRecord {
  readonly type: "payment" | "settlement" | "refund"
  /** The payment's id, or for a payout `<paymentId>:<kind>:<leg>`. */
  readonly id: string
  readonly paymentId: string
  readonly merchantId: string
  /** The partner's own reference of the payment (any text: exported inert). */
  readonly referenceId: string
  readonly status: string
  /** ISO 4217 code. */
  readonly currency: string
  /** The payment's fiat amount in minor units. */
  readonly fiatValue: bigint
  /** CAIP-19 asset paid (or paid out) in; `null` before the buyer chose one. */
  readonly asset: string | null
  /**
   * Token base units paid (a payment's; a held payment's: what was captured of it) or sent (a payout's);
   * `null` before the buyer chose.
   */
  readonly tokenValue: bigint | null
  /** The payment's own token amount, whose ratio to `fiatValue` is the rate it was paid at. */
  readonly paymentTokenValue: bigint | null
  readonly txHash: string | null
  /** Wei the service paid in gas for its transactions of this record (0 when it sent none). */
  readonly gasPaid: bigint
  /** CAIP-19 native asset the gas was paid in; `null` when none was paid. */
  readonly gasAsset: string | null
  readonly createdAt: number
  /** Its last change (a payment's latest status, a payout's completion or failure). */
  readonly updatedAt: number
}
