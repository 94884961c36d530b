/**
 * EIP-681 ERC-20 transfer requests as the deposit view's QR code carries them
 * (`ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<base units>`), read back by the
 * tests: whatever a scanning wallet would pay, and nothing else.
 */

/** What a wallet that scans the code sends: `value` base units of `token` to `to` on `chainId`. */
export interface TransferRequest {
  readonly token: string
  readonly chainId: number
  readonly to: string
  readonly value: bigint
}

const transferPattern = /^ethereum:(0x[0-9a-fA-F]{40})@([1-9][0-9]*)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(0|[1-9][0-9]*)$/

/** The transfer of an EIP-681 `transfer` URI in the form the service writes; `null` for anything else. */
export const parseTransferUri = (uri: string): TransferRequest | null => {
  const match = transferPattern.exec(uri)
  if (match === null) return null
  const [, token, chainId, to, value] = match
  return { token: token!, chainId: Number(chainId), to: to!, value: BigInt(value!) }
}
