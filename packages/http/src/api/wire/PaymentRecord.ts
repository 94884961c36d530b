import { CancelReason, PaymentStatus, RefundStage, SettlementStage } from "@paygate/domain"
import { Schema } from "effect"
import { Amount } from "./Amount.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"

/**
 * A held payment's hold: token amounts in base units of `option.asset`, times in Unix seconds.
 * `operations` are the captures and voids asked for, oldest first, as the worker carried them out.
 */
export const HoldRecord = Schema.Struct({
  /** Captures only before it; then what is still held goes back to the buyer. */
  captureBefore: NonNegativeInt,
  /** Refunds of captured amounts through the escrow only before it. */
  refundBefore: NonNegativeInt,
  voidAtDeadline: Schema.Boolean,
  /** Token held once authorized ("0" before). */
  authorized: Schema.String,
  captured: Schema.String,
  capturedAmount: Amount,
  /** How what was left went back to the buyer: the merchant's void, or the buyer's reclaim after the deadline. */
  released: Schema.NullOr(Schema.Literals(["voided", "reclaimed"])),
  /**
   * The escrow's terms once the buyer signed (`null` before): with the payer, the token, the deadlines and the
   * chain's executor as operator, what the buyer's `reclaim` names (docs/held-payments.md).
   */
  escrow: Schema.NullOr(Schema.Struct({ address: Schema.String, receiver: Schema.String, authorizeBefore: NonNegativeInt, salt: Schema.String })),
  operations: Schema.Array(Schema.Struct({
    kind: Schema.Literals(["capture", "void"]),
    amount: Schema.String,
    value: Amount,
    status: Schema.Literals(["pending", "submitted", "succeeded", "failed"]),
    txHash: Schema.NullOr(Schema.String),
    failure: Schema.NullOr(Schema.String),
    requestedBy: Schema.Literals(["merchant", "deadline"]),
    requestedAt: NonNegativeInt,
    completedAt: Schema.NullOr(NonNegativeInt)
  }))
}).annotate({ identifier: "HoldRecord" })

/**
 * A payment as the partner API shows it (`GET /v1/payments/{id}`) and as webhooks carry it:
 * statuses in the gateway vocabulary, timestamps in Unix seconds. Fields are only ever added.
 */
export const PaymentRecord = Schema.Struct({
  paymentId: Schema.String,
  merchantId: Schema.String,
  referenceId: Schema.String,
  status: PaymentStatus,
  isFinal: Schema.Boolean,
  amount: Amount,
  expiresAt: NonNegativeInt,
  checkout: Schema.NullOr(Schema.Struct({ successUrl: Schema.String, errorUrl: Schema.String })),
  /** The option the buyer committed to. */
  option: Schema.NullOr(Schema.Struct({ account: Schema.String, asset: Schema.String, value: Schema.String })),
  buyer: Schema.NullOr(Schema.Struct({ accountCaip10: Schema.String })),
  /** The payment's transaction, with its block explorer page when the chain has an explorer. */
  transaction: Schema.NullOr(Schema.Struct({ chainId: Schema.String, hash: Schema.String, explorerUrl: Schema.NullOr(Schema.String) })),
  settlement: Schema.NullOr(SettlementStage),
  refund: Schema.NullOr(RefundStage),
  cancelledReason: Schema.NullOr(CancelReason),
  cancelledAt: Schema.NullOr(NonNegativeInt),
  /** Increments with every change; lets webhook receivers drop stale events. */
  stateVersion: NonNegativeInt,
  createdAt: NonNegativeInt,
  updatedAt: NonNegativeInt,
  /** The payment link the buyer paid through (docs/payment-links.md); absent otherwise. */
  linkId: Schema.optionalKey(Schema.String),
  /** A payment created with `capture: "manual"` (docs/held-payments.md); absent otherwise. */
  hold: Schema.optionalKey(HoldRecord)
}).annotate({ identifier: "PaymentRecord" })
/** A decoded {@link PaymentRecord}. */
export type PaymentRecord = typeof PaymentRecord.Type
