import { Schema } from "effect"
import { PartnerId, PaymentId, ReceiptId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"
import { PaymentStatus } from "../payment/PaymentStatus.ts"
import { PayoutStatus, SignedTransfer } from "../payout/Payout.ts"

/**
 * What the chain watcher made of a transfer into a collection address:
 *
 * - `paid`: exactly what the payment still asked for, while it waited: processed as a confirm would
 *   be (or the payment's own confirmed transfer, seen again). The underpaid transfers of the same
 *   token it completes become `paid` too (they count towards the payment and are no longer
 *   refundable).
 * - `overpaid`: more than the payment still asked for, while it waited: processed as `paid`; the
 *   excess is refundable.
 * - `underpaid`: less than the payment still asked for: the payment stays open for the rest (the
 *   shortfall), which later transfers of the same token complete; refundable until then.
 * - `late`: the payment no longer waited (expired, cancelled, or already paid otherwise); refundable.
 * - `unmatched`: no reference, or one the service never handed out; refundable.
 */
export const ReceiptOutcome = Schema.Literals(["paid", "overpaid", "underpaid", "late", "unmatched"])
/** A receipt outcome. */
export type ReceiptOutcome = typeof ReceiptOutcome.Type

/** A token transfer into a collection address, as the chain watcher read it from a confirmed block. */
export interface ObservedTransfer {
  /** CAIP-2 chain id. */
  readonly chainId: string
  /** CAIP-19 token. */
  readonly asset: string
  readonly txHash: string
  /** Position of the `Transfer` log in its block. */
  readonly logIndex: number
  readonly blockNumber: number
  readonly blockHash: string
  /** Unix seconds of the block. */
  readonly blockTime: number
  /** CAIP-10 sender (the transfer's `from`). */
  readonly from: string
  /** Token base units. */
  readonly value: bigint
  /**
   * The reference the transaction carried, lower-case hex: the 16 bytes appended to a push transfer,
   * or the nonce of an EIP-3009 authorization; `null` for anything else.
   */
  readonly reference: string | null
  /**
   * Set when the transfer went to a payment's deposit address instead of a collection
   * address: that payment, and the address as CAIP-10 (EIP-55), as its deposit quotes name it.
   */
  readonly deposit?: { readonly paymentId: string; readonly account: string } | undefined
  /**
   * Set when the token is none the service accepts (it reached a deposit address): recorded as
   * unmatched and left to the operator, who may sweep it.
   */
  readonly unlisted?: true | undefined
}

/**
 * Sending a receipt's refundable value back to its sender, from the collection address: `pending`
 * until the transfer is final, then `completed` or `failed`. Changes are compare-and-set on `version`.
 */
export class ReceiptRefund extends Schema.Class<ReceiptRefund>("paygate/ReceiptRefund")({
  status: PayoutStatus,
  /** Token base units sent back: the receipt's refundable value when it was asked for. */
  value: Schema.BigInt,
  /** The partner that asked for it; `null`: the operator (an unmatched receipt of its own). */
  requestedBy: Schema.NullOr(PartnerId),
  /** The current attempt's transaction, recorded before its broadcast; `null` between attempts. */
  transfer: Schema.NullOr(SignedTransfer),
  /** Attempts that failed (reverted or dropped) so far. */
  attempts: Schema.Int,
  version: Schema.Int,
  /** Unix milliseconds. */
  requestedAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int
}) {}

/**
 * A recorded transfer into a collection address; one per (chain, transaction, log) still on chain.
 * Never deleted: one whose block a reorganisation of the chain replaced is kept, `reversedAt` set.
 */
export class Receipt extends Schema.Class<Receipt>("paygate/Receipt")({
  id: ReceiptId,
  chainId: Schema.String,
  asset: Schema.String,
  txHash: Schema.String,
  logIndex: Schema.Int,
  blockNumber: Schema.Int,
  blockHash: Schema.String,
  /** Unix seconds of the block. */
  blockTime: Schema.Int,
  /** CAIP-10 sender: a refund goes back to it. */
  from: Schema.String,
  /** Token base units received. */
  value: Schema.BigInt,
  reference: Schema.NullOr(Schema.String),
  outcome: ReceiptOutcome,
  /** The payment it was matched to; `null` when `unmatched`. */
  paymentId: Schema.NullOr(PaymentId),
  partnerId: Schema.NullOr(PartnerId),
  mode: Schema.NullOr(Mode),
  /**
   * Token base units the payment still asked for when it arrived: the matched option's amount less
   * the underpaid transfers of the same token before it (that it completes, if paid); `null` when
   * `unmatched`.
   */
  expectedValue: Schema.NullOr(Schema.BigInt),
  /** The payment's status when the transfer was recorded; `null` when `unmatched`. */
  paymentStatus: Schema.NullOr(PaymentStatus),
  /** Unix milliseconds. */
  recordedAt: Schema.Int,
  /** The refund of its refundable value, once asked for. */
  refund: Schema.NullOr(ReceiptRefund),
  /**
   * Unix milliseconds when a reorganisation of the chain was found to have removed its transfer:
   * it no longer counts, and nothing of it is refundable; `null` while on chain.
   */
  reversedAt: Schema.NullOr(Schema.Int)
}) {}

/** Token base units of the receipt the payment did not keep: refundable to the sender (none once reversed). */
export const refundableValue = (receipt: Receipt): bigint => {
  if (receipt.reversedAt !== null) return 0n
  switch (receipt.outcome) {
    case "paid":
      return 0n
    case "overpaid":
      return receipt.value - (receipt.expectedValue ?? receipt.value)
    default:
      return receipt.value
  }
}

/** Token base units still missing for the amount asked (underpaid receipts), else 0. */
export const shortfall = (receipt: Receipt): bigint =>
  receipt.outcome === "underpaid" && receipt.expectedValue !== null ? receipt.expectedValue - receipt.value : 0n
