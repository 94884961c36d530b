/**
 * A buyer's plain ERC-20 `transfer`, sent from a key the service never sees, as the deposit tests
 * pay: mined, and failing the test if it reverted.
 *
 * Its gas is fixed rather than estimated. An estimate made while the recipient holds tokens is too
 * low once the sweeper has emptied the address (writing a balance back from zero costs more), and
 * such a transfer reverts out of gas: a second part sent to a deposit address did, here.
 */
import { type Address, createWalletClient, defineChain, encodeFunctionData, erc20Abi, type Hex, http, publicActions } from "viem"
import { privateKeyToAccount } from "viem/accounts"

/** Enough for any TUSDC transfer (about 51,500 to an empty address). */
const transferGas = 100_000n

export interface TokenTransfer {
  readonly rpcUrl: string
  readonly privateKey: Hex
  readonly token: Address
  readonly to: Address
  readonly value: bigint
  /** When set, the node must be on this chain (as a wallet that scanned a payment request checks). */
  readonly chainId?: number
}

/** Sends `value` of `token` to `to` and waits for it to be mined; answers its hash, throws if it reverted. */
export const sendTokenTransfer = async (transfer: TokenTransfer): Promise<Hex> => {
  const chain = transfer.chainId === undefined ? null : defineChain({
    id: transfer.chainId,
    name: "anvil",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [transfer.rpcUrl] } }
  })
  const wallet = createWalletClient({ account: privateKeyToAccount(transfer.privateKey), transport: http(transfer.rpcUrl) })
    .extend(publicActions)
  const hash = await wallet.sendTransaction({
    chain,
    to: transfer.token,
    gas: transferGas,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [transfer.to, transfer.value] })
  })
  const receipt = await wallet.waitForTransactionReceipt({ hash })
  if (receipt.status !== "success") throw new Error(`the transfer ${hash} reverted (gas used ${receipt.gasUsed} of ${transferGas})`)
  return hash
}
