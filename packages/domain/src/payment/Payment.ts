import { Schema } from "effect"
import { EscrowTerms, Hold } from "../hold/Hold.ts"
import { MerchantId, PartnerId, PaymentId, PaymentLinkId } from "../ids/Ids.ts"
import { CancelReason, PaymentStatus } from "./PaymentStatus.ts"

/** Live or sandbox: data of one mode is never visible to credentials of the other (API rules §2). */
export const Mode = Schema.Literals(["live", "sandbox"])
/** Live or sandbox. */
export type Mode = typeof Mode.Type

/** Where the portal sends the buyer after a final status; absent when redirecting is disabled. */
export class CheckoutRedirect extends Schema.Class<CheckoutRedirect>("paygate/CheckoutRedirect")({
  successUrl: Schema.String,
  errorUrl: Schema.String
}) {}

/**
 * A pull payment's signed EIP-3009 `TransferWithAuthorization` (from = the commitment's account,
 * token = its asset, value = its token amount, validAfter 0), kept so that the executor can submit it.
 */
export class SignedAuthorization extends Schema.Class<SignedAuthorization>("paygate/SignedAuthorization")({
  /** Recipient: the chain's collection address. */
  to: Schema.String,
  /** Unix seconds; after it the authorization can no longer be submitted. */
  validBefore: Schema.Int,
  /** 0x + 32 bytes (lowercase hex), chosen with the quote. */
  nonce: Schema.String,
  /** 0x-prefixed signature as the wallet returned it. */
  signature: Schema.String,
  /** A held payment's escrow terms (`to` is then the escrow, `nonce` the terms' salt); absent otherwise. */
  escrow: Schema.optionalKey(EscrowTerms)
}) {}

/** The buyer's commitment to one option, recorded when a confirm is accepted. */
export class Commitment extends Schema.Class<Commitment>("paygate/Commitment")({
  /** Pull (EIP-3009 authorization signed by the buyer) or push (buyer-sent transfer). */
  kind: Schema.Literals(["pull", "push"]),
  /** CAIP-10 account that pays. */
  account: Schema.String,
  /** CAIP-19 asset paid in. */
  asset: Schema.String,
  /** Token amount in base units. */
  tokenAmount: Schema.BigInt,
  /** Stable digest of (option, results): a repeated identical confirm is recognised by it. */
  fingerprint: Schema.String,
  /** Transaction hash once known (push: from the confirm; pull: once submitted). */
  txHash: Schema.NullOr(Schema.String),
  /** Pull: the signed authorization the executor submits; push: `null`. */
  authorization: Schema.NullOr(SignedAuthorization),
  /** Push: the 16-byte reference appended to the transfer (0x hex); pull: `null`. */
  reference: Schema.NullOr(Schema.String),
  /** The wallet that confirmed (its `Sdk-Name`, else the app's name), shown as the buyer's account provider. */
  walletName: Schema.String,
  /** Unix seconds when the confirm was accepted. */
  confirmedAt: Schema.Int,
  /**
   * CAIP-10 account the transfer paid when it is not the chain's collection address: the payment's
   * deposit address. Absent otherwise.
   */
  recipient: Schema.optionalKey(Schema.String)
}) {}

/** A payment as the service records it. Amounts are in the fiat currency's minor units. */
export class Payment extends Schema.Class<Payment>("paygate/Payment")({
  id: PaymentId,
  partnerId: PartnerId,
  merchantId: MerchantId,
  mode: Mode,
  referenceId: Schema.String,
  /** ISO 4217 code of the payment currency. */
  currency: Schema.String,
  /** Amount in the currency's minor units. */
  value: Schema.BigInt,
  status: PaymentStatus,
  /** Increments with every change; webhook receivers use it to drop stale events. */
  stateVersion: Schema.Int,
  checkout: Schema.NullOr(CheckoutRedirect),
  /** Unix seconds after which the buyer can no longer commit. */
  expiresAt: Schema.Int,
  commitment: Schema.NullOr(Commitment),
  cancelledReason: Schema.NullOr(CancelReason),
  /** Unix seconds. */
  cancelledAt: Schema.NullOr(Schema.Int),
  /** Unix milliseconds. */
  createdAt: Schema.Int,
  /** Unix milliseconds. */
  updatedAt: Schema.Int,
  /** The payment link a buyer opened this payment from; absent for payments created through the API. */
  linkId: Schema.optionalKey(PaymentLinkId),
  /** A payment created with `capture: "manual"`: its funds held in the escrow until captured; absent otherwise. */
  hold: Schema.optionalKey(Hold)
}) {}
