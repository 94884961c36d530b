import { Schema } from "effect"
import { Amount } from "./Amount.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"
import { OptionId } from "./PaymentOption.ts"

/**
 * Paying by a plain transfer to the payment's own deposit address (additive to the
 * contract): from any wallet or exchange, no signature and no reference. `uri` is the EIP-681
 * request (what a QR code carries; the domain's `eip681Transfer` and `eip681Value`); `expiresAt`
 * (Unix seconds) is when the amount's quote ends, null when no rate.
 */
export const DepositOption = Schema.Struct({
  id: OptionId,
  kind: Schema.Literal("deposit"),
  /** CAIP-2 chain, e.g. `eip155:8453`. */
  network: Schema.String,
  /** CAIP-19 token, or the chain's own coin (`slip44`). */
  asset: Schema.String,
  /** The deposit address (EIP-55). */
  address: Schema.String,
  amount: Amount,
  uri: Schema.String,
  expiresAt: nullableKey(NonNegativeInt)
}).annotate({ identifier: "DepositOption" })

/** Decoded {@link DepositOption}. */
export type DepositOption = typeof DepositOption.Type

/** `POST /v1/gateway/payment/{id}/deposit`: one option per network and token that can be quoted. */
export const DepositOptionsResponse = Schema.Struct({
  options: Schema.Array(DepositOption)
}).annotate({ identifier: "DepositOptionsResponse" })

/** Decoded {@link DepositOptionsResponse}. */
export type DepositOptionsResponse = typeof DepositOptionsResponse.Type
