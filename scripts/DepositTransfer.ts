/**
 * The deposit path of `npm run pay -- <id> --deposit`: a plain ERC-20 `transfer` of a deposit
 * option's amount to its address, or for the chain's own coin a transaction sending that value there,
 * as a buyer sends from an exchange or another wallet. The node must be on the option's network, as
 * a wallet that scanned the checkout's QR code checks.
 */
import { type Address, createWalletClient, defineChain, encodeFunctionData, erc20Abi, type Hex, http, publicActions } from "viem"
import type { PrivateKeyAccount } from "viem/accounts"

/** What `POST /v1/gateway/payment/{id}/deposit` offers for one network and token. */
export interface DepositOffer {
  readonly network: string
  readonly asset: string
  readonly address: string
  readonly amount: { readonly value: string }
}

// A fixed gas limit: an estimate made while the deposit address holds tokens is too low once the
// sweeper has emptied it (writing a balance back from zero costs more).
const transferGas = 100_000n

/** Why `offer` cannot be sent through `rpcUrl`, or the mined transfer's hash. */
export const sendDeposit = async (
  offer: DepositOffer,
  account: PrivateKeyAccount,
  rpcUrl: string
): Promise<{ readonly hash: Hex } | { readonly problem: string }> => {
  const token = /^eip155:(\d+)\/(?:erc20:(0x[0-9a-fA-F]{40})|slip44:\d+)$/.exec(offer.asset)
  if (token === null) return { problem: `the option's token ${offer.asset} is neither an ERC-20 nor the coin of an EVM chain` }
  const chainId = Number(token[1])
  const chain = defineChain({
    id: chainId,
    name: offer.network,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } }
  })
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl, { retryCount: 0 }) }).extend(publicActions)
  let nodeChainId: number
  try {
    nodeChainId = await wallet.getChainId()
  } catch {
    return { problem: `cannot reach the chain at ${rpcUrl}: is it running? (--rpc-url)` }
  }
  if (nodeChainId !== chainId) {
    return { problem: `the node at ${rpcUrl} is chain ${nodeChainId}, not ${offer.network}: give that network's RPC (--rpc-url)` }
  }
  try {
    const value = BigInt(offer.amount.value)
    const hash = await wallet.sendTransaction(
      token[2] === undefined
        ? { to: offer.address as Address, value, gas: transferGas }
        : {
          to: token[2] as Address,
          gas: transferGas,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [offer.address as Address, value] })
        }
    )
    const receipt = await wallet.waitForTransactionReceipt({ hash })
    return receipt.status === "success" ? { hash } : { problem: `the transfer ${hash} reverted (does ${account.address} hold the token?)` }
  } catch (error) {
    return { problem: `the transfer was not sent: ${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}` }
  }
}
