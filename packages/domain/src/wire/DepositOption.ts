import { Schema } from "effect"
import { Amount } from "./Amount.ts"
import { NonNegativeInt } from "./NonNegativeInt.ts"
import { nullableKey } from "./nullableKey.ts"
import { OptionId } from "./PaymentOption.ts"

/**
 * Paying by a plain transfer to the payment's own deposit address (additive to the
 * contract): from any wallet or exchange, no signature and no reference. `uri` is the EIP-681
 * request (what a QR code carries): `ethereum:<token>@<chainId>/transfer?address=<address>&uint256=<base units>`
 * for a token, `ethereum:<address>@<chainId>?value=<wei>` for the chain's own coin; `expiresAt`
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

/** The EIP-681 transfer request of `value` base units of `token` (an address) on EIP-155 chain `chainNumber` to `address`. */
export const eip681Transfer = (token: string, chainNumber: string, address: string, value: string) =>
  `ethereum:${token}@${chainNumber}/transfer?address=${address}&uint256=${value}`

/** The EIP-681 request of `value` wei of the chain's own coin on EIP-155 chain `chainNumber` to `address`. */
export const eip681Value = (chainNumber: string, address: string, value: string) => `ethereum:${address}@${chainNumber}?value=${value}`
