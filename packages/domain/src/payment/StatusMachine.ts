import { Result, Schema } from "effect"
import { type MerchantPaymentStatus, PaymentStatus } from "./PaymentStatus.ts"

/** What can happen to a payment; each cause of API rules §4 is one event. */
export type PaymentEvent =
  | { readonly _tag: "ConfirmAccepted" }
  | { readonly _tag: "PushTransferSeen" }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Cancelled" }
  | { readonly _tag: "ChainSucceeded" }
  | { readonly _tag: "ChainFailed" }
  | { readonly _tag: "ChainReorged" }
  | { readonly _tag: "EscrowAuthorized" }
  | { readonly _tag: "HoldRequested" }
  | { readonly _tag: "PartCaptured" }
  | { readonly _tag: "CaptureCompleted" }
  | { readonly _tag: "Voided" }
  | { readonly _tag: "Reclaimed" }

/** An event that the status machine does not allow from the current status. */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()("IllegalTransition", {
  from: PaymentStatus,
  event: Schema.String
}) {}

// The only transitions (docs/api.md, statuses): from → event → to. One more than the specification lists: a
// reorganisation of the chain deeper than its confirmations that removes the transfer a payment
// succeeded with reopens it (`ChainReorged`), instead of reporting money that is not there.
// A held payment's authorization, once mined, leaves it `authorized` (not `succeeded`: nothing is
// captured yet); the merchant's capture and void requests, and the worker's records of its
// transactions, keep it there. A capture that leaves some held keeps it there; one that empties the escrow, or a
// void or reclaim after some capture, makes it `succeeded`; a void or reclaim before any, `voided`
// or `reclaimed`.
const transitions: { readonly [S in PaymentStatus]: Partial<Record<PaymentEvent["_tag"], PaymentStatus>> } = {
  requires_action: {
    ConfirmAccepted: "processing",
    PushTransferSeen: "processing",
    Expired: "expired",
    Cancelled: "cancelled"
  },
  processing: { ChainSucceeded: "succeeded", ChainFailed: "failed", EscrowAuthorized: "authorized" },
  succeeded: { ChainReorged: "processing" },
  failed: {},
  expired: {},
  cancelled: {},
  authorized: { HoldRequested: "authorized", PartCaptured: "authorized", CaptureCompleted: "succeeded", Voided: "voided", Reclaimed: "reclaimed" },
  voided: {},
  reclaimed: {}
}

/** The status after `event`, or `IllegalTransition` when API rules §4 does not allow it. */
export const transition = (from: PaymentStatus, event: PaymentEvent): Result.Result<PaymentStatus, IllegalTransition> => {
  const to = transitions[from][event._tag]
  return to === undefined ? Result.fail(new IllegalTransition({ from, event: event._tag })) : Result.succeed(to)
}

/**
 * Terminal statuses never change (but a `succeeded` one whose transfer a reorganisation removed).
 * `authorized` is not final: the merchant still has to capture or void.
 */
export const isFinal = (status: PaymentStatus): boolean =>
  status === "succeeded" || status === "failed" || status === "expired" || status === "cancelled" || status === "voided" ||
  status === "reclaimed"

/**
 * Suggested polling delay: 2000 ms while waiting for the buyer, 1000 ms while processing, none when
 * final or `authorized` (what comes next is the merchant's, maybe days later: webhooks tell it).
 */
export const pollInMs = (status: PaymentStatus): number | null =>
  status === "requires_action" ? 2000 : status === "processing" ? 1000 : null

/** The Merchant API's view of a status: `requires_action` → `pending`, `cancelled` → `failed`, the rest unchanged. */
export const merchantStatus = (status: PaymentStatus): MerchantPaymentStatus =>
  status === "requires_action" ? "pending" : status === "cancelled" ? "failed" : status

/**
 * The status to report at `nowSeconds`: a payment still waiting for the buyer past its
 * `expiresAt` is expired, even before the worker has recorded it.
 */
export const statusAt = (
  payment: { readonly status: PaymentStatus; readonly expiresAt: number },
  nowSeconds: number
): PaymentStatus => (payment.status === "requires_action" && nowSeconds >= payment.expiresAt ? "expired" : payment.status)

/**
 * The status wallets see (the gateway API): they know only the six statuses of the specification. A held
 * payment's buyer is done once the escrow holds the funds, so `authorized` reads `succeeded`; what the
 * escrow gave back (`voided`, `reclaimed`) reads `failed`. Partners and merchants see the held statuses.
 */
export const walletStatus = (status: PaymentStatus): PaymentStatus =>
  status === "authorized" ? "succeeded" : status === "voided" || status === "reclaimed" ? "failed" : status
