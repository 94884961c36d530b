import { Schema } from "effect"

/**
 * x402 (protocol version 2) bodies of the facilitator API, as the published `@x402/core` types
 * define them: `PaymentRequirements`, `PaymentPayload`, the `/verify` and `/settle` requests and
 * responses, and `/supported`. Fields x402 adds that paygate does not read (extensions, resource
 * descriptions) are accepted and ignored.
 */
export const X402Requirements = Schema.Struct({
  scheme: Schema.String,
  network: Schema.String,
  asset: Schema.String,
  amount: Schema.String,
  payTo: Schema.String,
  maxTimeoutSeconds: Schema.Number,
  extra: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "X402PaymentRequirements" })

/** `ResourceInfo`: what was paid for. */
export const X402Resource = Schema.Struct({
  url: Schema.String,
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "X402ResourceInfo" })

/** `PaymentPayload`: the client's signed payment for the requirements it accepted. */
export const X402PaymentPayload = Schema.Struct({
  x402Version: Schema.Number,
  resource: Schema.optionalKey(X402Resource),
  accepted: X402Requirements,
  payload: Schema.Record(Schema.String, Schema.Unknown),
  extensions: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "X402PaymentPayload" })

/** The `exact` scheme's EIP-3009 payload (`PaymentPayload.payload`). */
export const X402Eip3009Payload = Schema.Struct({
  signature: Schema.String,
  authorization: Schema.Struct({
    from: Schema.String,
    to: Schema.String,
    value: Schema.String,
    validAfter: Schema.String,
    validBefore: Schema.String,
    nonce: Schema.String
  })
})

/** Body of `POST /x402/verify` and `POST /x402/settle`. */
export const X402FacilitatorRequest = Schema.Struct({
  x402Version: Schema.Number,
  paymentPayload: X402PaymentPayload,
  paymentRequirements: X402Requirements
}).annotate({ identifier: "X402FacilitatorRequest" })

/** Response of `POST /x402/verify` (`VerifyResponse`). */
export const X402VerifyResponse = Schema.Struct({
  isValid: Schema.Boolean,
  invalidReason: Schema.optionalKey(Schema.String),
  invalidMessage: Schema.optionalKey(Schema.String),
  payer: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "X402VerifyResponse" })

/** Response of `POST /x402/settle` (`SettleResponse`); `extra.paymentId` names the merchant payment that records it. */
export const X402SettleResponse = Schema.Struct({
  success: Schema.Boolean,
  errorReason: Schema.optionalKey(Schema.String),
  errorMessage: Schema.optionalKey(Schema.String),
  payer: Schema.optionalKey(Schema.String),
  transaction: Schema.String,
  network: Schema.String,
  extra: Schema.optionalKey(Schema.Struct({ paymentId: Schema.String }))
}).annotate({ identifier: "X402SettleResponse" })

/** Response of `GET /x402/supported` (`SupportedResponse`). */
export const X402SupportedResponse = Schema.Struct({
  kinds: Schema.Array(Schema.Struct({
    x402Version: Schema.Number,
    scheme: Schema.String,
    network: Schema.String,
    /** Where paygate receives for the merchant on this network, and the EIP-3009 tokens it takes there. */
    extra: Schema.Struct({
      payTo: Schema.String,
      assets: Schema.Array(Schema.Struct({
        address: Schema.String,
        symbol: Schema.String,
        decimals: Schema.Number,
        domain: Schema.Struct({ name: Schema.String, version: Schema.String })
      }))
    })
  })),
  extensions: Schema.Array(Schema.String),
  signers: Schema.Record(Schema.String, Schema.Array(Schema.String))
}).annotate({ identifier: "X402SupportedResponse" })

/** The `PaymentRequired` of a 402 response. */
export const X402PaymentRequired = Schema.Struct({
  x402Version: Schema.Number,
  error: Schema.optionalKey(Schema.String),
  resource: X402Resource,
  accepts: Schema.Array(X402Requirements)
}).annotate({ identifier: "X402PaymentRequired" })
