import { Schema } from "effect"

/**
 * What a buyer's authorization into the escrow fixes beside the token, payer, amount and its own
 * deadline: where captures go and until when. The escrow contract hashes these (with the chain's
 * executor as operator and the quote's nonce as salt) into the nonce the buyer signs, so none of them
 * can change without a new signature.
 */
export class EscrowTerms extends Schema.Class<EscrowTerms>("paygate/EscrowTerms")({
  /** 0x address: the merchant's settlement destination on the token's chain; every capture goes there. */
  receiver: Schema.String,
  /** Unix seconds: captures only before it; after it the buyer may reclaim what is still held. */
  captureBefore: Schema.Int,
  /** Unix seconds: refunds of captured amounts only before it. */
  refundBefore: Schema.Int
}) {}

/** An operation the merchant asked of held funds, carried out by the worker on chain. */
export const HoldOperationKind = Schema.Literals(["capture", "void"])
/** Capture or void. */
export type HoldOperationKind = typeof HoldOperationKind.Type

/** `pending` (not sent yet), `submitted` (a transaction carries it), `succeeded`, `failed` (the chain refused it for good). */
export const HoldOperationStatus = Schema.Literals(["pending", "submitted", "succeeded", "failed"])
/** Where a hold operation stands. */
export type HoldOperationStatus = typeof HoldOperationStatus.Type

/** One capture or void of a held payment. */
export class HoldOperation extends Schema.Class<HoldOperation>("paygate/HoldOperation")({
  kind: HoldOperationKind,
  /** Token base units: what a capture moves to the receiver; for a void, what was still held when it was asked. */
  tokenAmount: Schema.BigInt,
  /** The same in the payment currency's minor units. */
  value: Schema.BigInt,
  status: HoldOperationStatus,
  /** The last transaction sent for it; `null` until one is. */
  txHash: Schema.NullOr(Schema.String),
  /** Why it failed, in a sentence; `null` otherwise. */
  failure: Schema.NullOr(Schema.String),
  /** `merchant` (asked through the API or dashboard) or `deadline` (the worker's void at the capture deadline). */
  requestedBy: Schema.Literals(["merchant", "deadline"]),
  /** Unix seconds. */
  requestedAt: Schema.Int,
  /** Unix seconds when it succeeded or failed; `null` before. */
  completedAt: Schema.NullOr(Schema.Int)
}) {}

/**
 * A payment created with `capture: "manual"`: its funds are held in the escrow from the buyer's
 * authorization until the merchant captures them (once or in parts), voids them, or the buyer
 * reclaims them after the capture deadline. The service never holds them.
 */
export class Hold extends Schema.Class<Hold>("paygate/Hold")({
  /** Unix seconds: the capture deadline, fixed when the payment is created. */
  captureBefore: Schema.Int,
  /** Unix seconds: the end of the refund window. */
  refundBefore: Schema.Int,
  /** Whether the worker gives what is still held back to the buyer at the capture deadline. */
  voidAtDeadline: Schema.Boolean,
  /** Token base units held once authorized (0 before). */
  authorized: Schema.BigInt,
  /** Token base units captured so far. */
  captured: Schema.BigInt,
  /** Captured so far in the payment currency's minor units. */
  capturedValue: Schema.BigInt,
  /** How what was still held left the escrow without a capture; `null` while some is held. */
  released: Schema.NullOr(Schema.Literals(["voided", "reclaimed"])),
  /** Captures and voids, oldest first. */
  operations: Schema.Array(HoldOperation)
}) {}
