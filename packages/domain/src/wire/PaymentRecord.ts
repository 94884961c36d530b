import { Schema } from "effect"
import { type CurrencyCode, currencyExponent, currencyName } from "../money/Currency.ts"
import { fiatUnitPrefix } from "../money/Unit.ts"
import type { Payment } from "../payment/Payment.ts"
import { CancelReason, PaymentStatus } from "../payment/PaymentStatus.ts"
import { isFinal } from "../payment/StatusMachine.ts"
import type { Refund } from "../refund/Refund.ts"
import { RefundStatus } from "../refund/Refund.ts"
import { Amount } from "./Amount.ts"
import { ExplorerLinks, type ExplorerLinksShape } from "../ports/ExplorerLinks.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"

/** The fiat `Amount` of a payment, with display data from the ISO 4217 table. */
export const fiatAmount = (currency: string, value: bigint): Amount => {
  const code = currency as CurrencyCode
  return {
    unit: `${fiatUnitPrefix}${currency}`,
    value: value.toString(),
    display: {
      assetName: currencyName(code),
      assetSymbol: currency,
      decimals: currencyExponent(code),
      iconUrl: null,
      networkIconUrl: null,
      networkName: null
    }
  }
}

/**
 * Present while a pending stage's payout waits for an owner's approval (it is over a payout limit
 * the operator configured; docs/going-live.md "Limits"): `waitingFor: "approval"` and why.
 */
const approvalFields = {
  waitingFor: Schema.optionalKey(Schema.Literal("approval")),
  approvalReason: Schema.optionalKey(Schema.String)
}

/** Settlement stage of a succeeded payment (API rules §4). */
export const SettlementStage = Schema.Struct({
  status: Schema.Literals(["pending", "completed", "failed"]),
  txHash: Schema.NullOr(Schema.String),
  settledAt: Schema.NullOr(NonNegativeInt),
  ...approvalFields
})

/** Refund stage of a succeeded payment (API rules §4). */
export const RefundStage = Schema.Struct({
  refundId: Schema.String,
  status: RefundStatus,
  txHash: Schema.NullOr(Schema.String),
  ...approvalFields
})

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
  linkId: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "PaymentRecord" })
/** A payment record. */
export type PaymentRecord = typeof PaymentRecord.Type

/** Stages that live outside the payment row. */
export interface PaymentStages {
  readonly refund?: Refund | null | undefined
  readonly settlement?: typeof SettlementStage.Type | null | undefined
  /** When the refund's payouts wait for an owner's approval: what the refund stage shows of it. */
  readonly refundWait?: { readonly waitingFor?: "approval"; readonly approvalReason?: string } | undefined
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
    ...(payment.linkId === undefined ? {} : { linkId: payment.linkId })
  }
}
