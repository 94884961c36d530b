/**
 * The x402 protocol (version 2) as the facilitator speaks it: the `exact` scheme on EVM chains,
 * settled with an EIP-3009 `transferWithAuthorization`. Shapes follow the published `@x402/core`
 * types (`PaymentRequirements`, `PaymentPayload`, `VerifyResponse`, `SettleResponse`) with CAIP-2
 * network ids; amounts and times are decimal strings, as x402 clients send them.
 *
 * @module
 */

/** The protocol version served. */
export const x402Version = 2

/** The only scheme served: an exact amount, moved by one signed EIP-3009 authorization. */
export const exactScheme = "exact"

/** Why a payment is refused or did not settle: x402's reasons, as its reference facilitator names them. */
export const X402Reason = {
  version: "invalid_x402_version",
  scheme: "unsupported_scheme",
  payload: "invalid_payload",
  requirements: "invalid_payment_requirements",
  network: "invalid_network",
  networkMismatch: "invalid_exact_evm_network_mismatch",
  asset: "invalid_exact_evm_eip3009_not_supported",
  recipient: "invalid_exact_evm_recipient_mismatch",
  value: "invalid_exact_evm_payload_authorization_value_mismatch",
  validAfter: "invalid_exact_evm_payload_authorization_valid_after",
  validBefore: "invalid_exact_evm_payload_authorization_valid_before",
  signature: "invalid_exact_evm_signature",
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  balance: "invalid_exact_evm_insufficient_balance",
  transactionFailed: "invalid_exact_evm_transaction_failed",
  pending: "settlement_pending",
  verifyError: "unexpected_verify_error",
  settleError: "unexpected_settle_error"
} as const

/** One of {@link X402Reason}. */
export type X402Reason = typeof X402Reason[keyof typeof X402Reason]

/** What a resource server asks for (`PaymentRequirements`). */
export interface X402Requirements {
  readonly scheme: string
  /** CAIP-2 network id. */
  readonly network: string
  /** The token contract's address. */
  readonly asset: string
  /** Token base units, decimal. */
  readonly amount: string
  readonly payTo: string
  readonly maxTimeoutSeconds: number
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}

/** The EIP-3009 authorization of an `exact` payload, as signed (numbers as decimal strings). */
export interface X402Authorization {
  readonly from: string
  readonly to: string
  readonly value: string
  readonly validAfter: string
  readonly validBefore: string
  readonly nonce: string
}

/** A client's payment for some requirements (`PaymentPayload` with the `exact` EIP-3009 payload read out). */
export interface X402Payment {
  readonly x402Version: number
  readonly accepted: X402Requirements
  /** Absent when the payload is not an EIP-3009 one (e.g. Permit2). */
  readonly authorization: X402Authorization | undefined
  readonly signature: string | undefined
  /** The URL of the resource paid for, when the payload names it. */
  readonly resourceUrl: string | undefined
}

/** A `/verify` or `/settle` request. */
export interface X402Request {
  readonly x402Version: number
  readonly payment: X402Payment
  readonly requirements: X402Requirements
}

/** A `/verify` answer (`VerifyResponse`). */
export type X402Verdict =
  | { readonly isValid: true; readonly payer: string }
  | { readonly isValid: false; readonly invalidReason: X402Reason; readonly invalidMessage: string; readonly payer?: string | undefined }

/** A `/settle` answer (`SettleResponse`), with the merchant payment that records it once there is one. */
export interface X402Settlement {
  readonly success: boolean
  readonly errorReason?: X402Reason | undefined
  readonly errorMessage?: string | undefined
  readonly payer?: string | undefined
  /** The transaction hash, empty when none was sent. */
  readonly transaction: string
  readonly network: string
  readonly paymentId?: string | undefined
}

/** An EIP-3009 token of a network, with what a resource server's requirements need of it. */
export interface X402Asset {
  /** The token contract's address. */
  readonly address: string
  readonly symbol: string
  readonly decimals: number
  /** Its EIP-712 domain: the requirements' `extra`. */
  readonly domain: { readonly name: string; readonly version: string }
}

/**
 * What a `/supported` answer lists for a merchant (`SupportedKind`); `extra` says where to be paid
 * (`payTo`) and in what (`assets`), so a resource server builds its requirements from it alone.
 */
export interface X402Kind {
  readonly x402Version: number
  readonly scheme: string
  readonly network: string
  readonly extra: { readonly payTo: string; readonly assets: ReadonlyArray<X402Asset> }
}
