import { Effect, Schema } from "effect"
import { PaymentId, RefundId } from "../ids/Ids.ts"

/**
 * Why tokens leave the collection address: forwarding a succeeded payment to the merchant's crypto
 * settlement destination, or refunding it to the payer.
 */
export const PayoutKind = Schema.Literals(["settlement", "refund"])
/** A payout kind. */
export type PayoutKind = typeof PayoutKind.Type

/** Lifecycle of a payout; the settlement and refund stages of a payment show it (API rules §4). */
export const PayoutStatus = Schema.Literals(["pending", "completed", "failed"])
/** A payout status. */
export type PayoutStatus = typeof PayoutStatus.Type

/**
 * A transfer signed and recorded before it is broadcast: re-broadcasting these same bytes can never
 * make a second transfer, so a crash between broadcast and recording costs nothing.
 */
export class SignedTransfer extends Schema.Class<SignedTransfer>("paygate/SignedTransfer")({
  /** 0x-prefixed transaction hash. */
  txHash: Schema.String,
  /** The signed transaction as the chain port serialized it (opaque to the domain). */
  raw: Schema.String
}) {}

/**
 * One payout of a succeeded payment: `value` of `asset` from the collection address to `recipient`.
 * A payment's funds leave once: together its payouts never send more than was paid (its refunds,
 * then a settlement of what they left). A refund is one payout per sender of the payment's parts,
 * each part's amount back to its sender; a settlement is one. A payment's payouts are numbered on
 * (`leg` 0, 1, …) and no two live ones share a number. Changes are compare-and-set on `version`.
 */
export class Payout extends Schema.Class<Payout>("paygate/Payout")({
  paymentId: PaymentId,
  kind: PayoutKind,
  /** Its number among the payment's payouts (see {@link nextLeg}). */
  leg: Schema.Int,
  /** The refund this payout executes; `null` for a settlement. */
  refundId: Schema.NullOr(RefundId),
  /** CAIP-19 token. */
  asset: Schema.String,
  /** CAIP-10 account paid: the settlement destination, or the payer. */
  recipient: Schema.String,
  /** Token base units. */
  value: Schema.BigInt,
  status: PayoutStatus,
  /** The current attempt's transaction, recorded before its broadcast; `null` between attempts. */
  transfer: Schema.NullOr(SignedTransfer),
  /** Attempts that failed (reverted) so far. */
  attempts: Schema.Int,
  /** Why the last attempt failed, for operators. */
  lastError: Schema.NullOr(Schema.String),
  /** Increments with every change (compare-and-set). */
  version: Schema.Int,
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int,
  /** Unix milliseconds when it completed. */
  completedAt: Schema.NullOr(Schema.Int),
  /** Why it waits for an owner's approval before it is signed (over a limit: `PayoutLimits`); `null` when it need not. */
  approvalRequired: Schema.NullOr(Schema.String).pipe(Schema.withConstructorDefault(Effect.succeed(null))),
  /** Who approved it (an audit actor: `member:…`, `key:…`, `operator`); an approved payout is signed whatever the limits. */
  approvedBy: Schema.NullOr(Schema.String).pipe(Schema.withConstructorDefault(Effect.succeed(null))),
  /** Unix milliseconds when it was approved. */
  approvedAt: Schema.NullOr(Schema.Int).pipe(Schema.withConstructorDefault(Effect.succeed(null)))
}) {}

/** Whether a pending payout waits for an owner's approval (it is not signed until then). */
export const awaitsApproval = (payout: Payout): boolean =>
  payout.status === "pending" && payout.transfer === null && payout.approvalRequired !== null && payout.approvedAt === null

/** A new payout, pending with no transfer yet, created at `millis` (Unix ms). */
export const pendingPayout = (
  fields: Pick<Payout, "paymentId" | "kind" | "refundId" | "asset" | "recipient" | "value"> & { readonly leg?: number },
  millis: number
): Payout =>
  new Payout({
    ...fields,
    leg: fields.leg ?? 0,
    status: "pending",
    transfer: null,
    attempts: 0,
    lastError: null,
    version: 1,
    createdAt: millis,
    updatedAt: millis,
    completedAt: null
  })

/** What a pending stage waits for, when it waits for an owner's approval: `waitingFor` and `approvalReason`. */
export const approvalWait = (payouts: ReadonlyArray<Payout>) => {
  const waiting = payouts.find(awaitsApproval)
  return waiting === undefined ? {} : { waitingFor: "approval" as const, approvalReason: waiting.approvalRequired! }
}

/** The settlement stage of a payment (API rules §4) as its settlement payout stands. */
export const settlementStage = (payout: Payout) => ({
  status: payout.status,
  txHash: payout.transfer?.txHash ?? null,
  settledAt: payout.completedAt === null ? null : Math.floor(payout.completedAt / 1000),
  ...approvalWait([payout])
})

/** The number the next payout of a payment takes: one past the highest of `payouts` (0 for the first). */
export const nextLeg = (payouts: ReadonlyArray<Pick<Payout, "leg">>): number =>
  payouts.reduce((next, p) => (p.leg >= next ? p.leg + 1 : next), 0)
