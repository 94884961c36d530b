import type { Amount } from "../money/Amount.ts"

/**
 * Paying by a plain transfer to the payment's own deposit address: from any wallet or exchange,
 * no signature and no reference. `uri` is the EIP-681 request (what a QR code carries, see
 * {@link eip681Transfer} and {@link eip681Value}); `expiresAt` (Unix seconds) is when the amount's
 * quote ends, null when no rate.
 */
export interface DepositOption {
  readonly id: string
  readonly kind: "deposit"
  /** CAIP-2 chain, e.g. `eip155:8453`. */
  readonly network: string
  /** CAIP-19 token, or the chain's own coin (`slip44`). */
  readonly asset: string
  /** The deposit address (EIP-55). */
  readonly address: string
  readonly amount: Amount
  readonly uri: string
  readonly expiresAt: number | null
}

/** The EIP-681 transfer request of `value` base units of `token` (an address) on EIP-155 chain `chainNumber` to `address`. */
export const eip681Transfer = (token: string, chainNumber: string, address: string, value: string) =>
  `ethereum:${token}@${chainNumber}/transfer?address=${address}&uint256=${value}`

/** The EIP-681 request of `value` wei of the chain's own coin on EIP-155 chain `chainNumber` to `address`. */
export const eip681Value = (chainNumber: string, address: string, value: string) => `ethereum:${address}@${chainNumber}?value=${value}`
