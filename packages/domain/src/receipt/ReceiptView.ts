import { type Receipt, type ReceiptRefund, refundableValue, shortfall } from "./Receipt.ts"

/**
 * A receipt on the wire (`GET /v1/receipts` and the `receipt` of a `payment.processing` or
 * `payment.transfer_received` stage): token amounts as decimal strings of base units, times in Unix
 * seconds, `shortfall` and `refundableValue` derived from the outcome.
 */
export interface ReceiptView {
  readonly receiptId: string
  readonly outcome: Receipt["outcome"]
  readonly paymentId: string | null
  readonly paymentStatus: Receipt["paymentStatus"]
  readonly chainId: string
  readonly asset: string
  readonly txHash: string
  readonly logIndex: number
  readonly blockNumber: number
  readonly blockTime: number
  readonly from: string
  readonly value: string
  readonly expectedValue: string | null
  readonly shortfall: string
  readonly refundableValue: string
  readonly reference: string | null
  readonly createdAt: number
  /** The refund once asked for (`POST /v1/receipts/{id}/refund`). */
  readonly refund: { readonly status: ReceiptRefund["status"]; readonly value: string; readonly txHash: string | null } | null
  /** Unix seconds when a reorganisation of the chain removed the transfer; `null` while on chain. */
  readonly reversedAt: number | null
}

/** The wire form of `receipt`. */
export const receiptView = (receipt: Receipt): ReceiptView => ({
  receiptId: receipt.id,
  outcome: receipt.outcome,
  paymentId: receipt.paymentId,
  paymentStatus: receipt.paymentStatus,
  chainId: receipt.chainId,
  asset: receipt.asset,
  txHash: receipt.txHash,
  logIndex: receipt.logIndex,
  blockNumber: receipt.blockNumber,
  blockTime: receipt.blockTime,
  from: receipt.from,
  value: receipt.value.toString(),
  expectedValue: receipt.expectedValue === null ? null : receipt.expectedValue.toString(),
  shortfall: shortfall(receipt).toString(),
  refundableValue: refundableValue(receipt).toString(),
  reference: receipt.reference,
  createdAt: Math.floor(receipt.recordedAt / 1000),
  refund: receipt.refund === null
    ? null
    : { status: receipt.refund.status, value: receipt.refund.value.toString(), txHash: receipt.refund.transfer?.txHash ?? null },
  reversedAt: receipt.reversedAt === null ? null : Math.floor(receipt.reversedAt / 1000)
})
