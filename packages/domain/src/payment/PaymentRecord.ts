import { Schema } from "effect"
import { fiatAmount, type Amount } from "../money/Amount.ts"
import { ExplorerLinks, type ExplorerLinksShape } from "../ports/ExplorerLinks.ts"
import { type Refund, RefundStatus } from "../refund/Refund.ts"
import type { CancelReason, PaymentStatus } from "./PaymentStatus.ts"
import type { Hold } from "../hold/Hold.ts"
import type { Payment } from "./Payment.ts"
import { isFinal } from "./StatusMachine.ts"

const approvalFields = {
  waitingFor: Schema.optionalKey(Schema.Literal("approval")),
  approvalReason: Schema.optionalKey(Schema.String)
}

/**
 * Present while a pending stage's payout waits for an owner's approval (it is over a payout limit
 * the operator configured; docs/going-live.md "Limits"): `waitingFor: "approval"` and why.
 */
export type ApprovalWait = Schema.Struct<typeof approvalFields>["Type"]

/**
 * Settlement stage of a succeeded payment (API rules §4); `settledAt` in Unix seconds. A schema: it
 * is also a `payment.settled` event's stored stage, read back with {@link isSettlementStage}.
 */
export const SettlementStage = Schema.Struct({
  status: Schema.Literals(["pending", "completed", "failed"]),
  txHash: Schema.NullOr(Schema.String),
  settledAt: Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  ...approvalFields
})
/** A settlement stage. */
export type SettlementStage = typeof SettlementStage.Type

/** Whether an event's `stage` is a {@link SettlementStage} (a `payment.settled` event's is). */
export const isSettlementStage = Schema.is(SettlementStage)

/** Refund stage of a succeeded payment (API rules §4). */
export const RefundStage = Schema.Struct({
  refundId: Schema.String,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  ...approvalFields
})
/** A refund stage. */
export type RefundStage = typeof RefundStage.Type

/**
 * A payment as partners see it (`GET /v1/payments/{id}`) and as webhooks carry it: statuses in the
 * gateway vocabulary, timestamps in Unix seconds. Fields are only ever added.
 */
export interface PaymentRecord {
  readonly paymentId: string
  readonly merchantId: string
  readonly referenceId: string
  readonly status: PaymentStatus
  readonly isFinal: boolean
  readonly amount: Amount
  readonly expiresAt: number
  readonly checkout: { readonly successUrl: string; readonly errorUrl: string } | null
  /** The option the buyer committed to. */
  readonly option: { readonly account: string; readonly asset: string; readonly value: string } | null
  readonly buyer: { readonly accountCaip10: string } | null
  /** The payment's transaction, with its block explorer page when the chain has an explorer. */
  readonly transaction: { readonly chainId: string; readonly hash: string; readonly explorerUrl: string | null } | null
  readonly settlement: SettlementStage | null
  readonly refund: RefundStage | null
  readonly cancelledReason: CancelReason | null
  readonly cancelledAt: number | null
  /** Increments with every change; lets webhook receivers drop stale events. */
  readonly stateVersion: number
  readonly createdAt: number
  readonly updatedAt: number
  /** The payment link the buyer paid through (docs/payment-links.md); absent otherwise. */
  readonly linkId?: string
  /** A payment created with `capture: "manual"`: what the escrow holds and what the merchant asked of it. */
  readonly hold?: HoldRecord
}

/** A held payment's hold as records and webhooks show it: token amounts in base units of `option.asset`, times in Unix seconds. */
export interface HoldRecord {
  readonly captureBefore: number
  readonly refundBefore: number
  readonly voidAtDeadline: boolean
  /** Held once authorized ("0" before). */
  readonly authorized: string
  readonly captured: string
  /** What is captured, in the payment's currency. */
  readonly capturedAmount: Amount
  readonly released: "voided" | "reclaimed" | null
  /**
   * The escrow's terms of this payment once the buyer signed (`null` before): with the payer (`buyer`), the
   * token (`option.asset`), the deadlines above and the chain's executor as operator, what the buyer's
   * `reclaim` names.
   */
  readonly escrow: { readonly address: string; readonly receiver: string; readonly authorizeBefore: number; readonly salt: string } | null
  readonly operations: ReadonlyArray<{
    readonly kind: "capture" | "void"
    readonly amount: string
    readonly value: Amount
    readonly status: "pending" | "submitted" | "succeeded" | "failed"
    readonly txHash: string | null
    readonly failure: string | null
    readonly requestedBy: "merchant" | "deadline"
    readonly requestedAt: number
    readonly completedAt: number | null
  }>
}

const escrowOf = (payment: Payment): HoldRecord["escrow"] => {
  const authorization = payment.commitment?.authorization
  if (authorization === null || authorization === undefined || authorization.escrow === undefined) return null
  return { address: authorization.to, receiver: authorization.escrow.receiver, authorizeBefore: authorization.validBefore, salt: authorization.nonce }
}

const holdRecord = (payment: Payment, hold: Hold): HoldRecord => ({
  captureBefore: hold.captureBefore,
  refundBefore: hold.refundBefore,
  voidAtDeadline: hold.voidAtDeadline,
  authorized: hold.authorized.toString(),
  captured: hold.captured.toString(),
  capturedAmount: fiatAmount(payment.currency, hold.capturedValue),
  released: hold.released,
  escrow: escrowOf(payment),
  operations: hold.operations.map((op) => ({
    kind: op.kind,
    amount: op.tokenAmount.toString(),
    value: fiatAmount(payment.currency, op.value),
    status: op.status,
    txHash: op.txHash,
    failure: op.failure,
    requestedBy: op.requestedBy,
    requestedAt: op.requestedAt,
    completedAt: op.completedAt
  }))
})

/** Stages that live outside the payment row. */
export interface PaymentStages {
  readonly refund?: Refund | null | undefined
  readonly settlement?: SettlementStage | null | undefined
  /** When the refund's payouts wait for an owner's approval: what the refund stage shows of it. */
  readonly refundWait?: ApprovalWait | undefined
}

// The CAIP-2 chain of a CAIP-19 asset id: everything before the first "/".
const chainOf = (assetId: string) => assetId.slice(0, assetId.indexOf("/"))

/** The record of a payment (with its status as of the read, expiry included). */
export const toPaymentRecord = (
  payment: Payment,
  stages: PaymentStages = {},
  explorer: ExplorerLinksShape = ExplorerLinks.defaultValue()
): PaymentRecord => {
  const c = payment.commitment
  return {
    paymentId: payment.id,
    merchantId: payment.merchantId,
    referenceId: payment.referenceId,
    status: payment.status,
    isFinal: isFinal(payment.status),
    amount: fiatAmount(payment.currency, payment.value),
    expiresAt: payment.expiresAt,
    checkout: payment.checkout === null ? null : { successUrl: payment.checkout.successUrl, errorUrl: payment.checkout.errorUrl },
    option: c === null ? null : { account: c.account, asset: c.asset, value: c.tokenAmount.toString() },
    buyer: c === null ? null : { accountCaip10: c.account },
    transaction: c === null || c.txHash === null
      ? null
      : { chainId: chainOf(c.asset), hash: c.txHash, explorerUrl: explorer.transaction(chainOf(c.asset), c.txHash) },
    settlement: stages.settlement ?? null,
    refund: stages.refund == null
      ? null
      : { refundId: stages.refund.id, status: stages.refund.status, txHash: stages.refund.txHash, ...stages.refundWait },
    cancelledReason: payment.cancelledReason,
    cancelledAt: payment.cancelledAt,
    stateVersion: payment.stateVersion,
    createdAt: Math.floor(payment.createdAt / 1000),
    updatedAt: Math.floor(payment.updatedAt / 1000),
    ...(payment.linkId === undefined ? {} : { linkId: payment.linkId }),
    ...(payment.hold === undefined ? {} : { hold: holdRecord(payment, payment.hold) })
  }
}
