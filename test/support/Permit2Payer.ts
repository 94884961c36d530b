/**
 * Buyers for tests of Permit2's allowances on a local chain: a fresh key with gas and TUSDC, which has
 * approved Permit2 on TUSDC once, as a wallet does before its first permit.
 */
import { type Address, createPublicClient, createWalletClient, encodeFunctionData, type Hex, http, maxUint256 } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { Chain } from "@paygate/adapters"

/** An account a test signs and sends with. */
export interface TestAccount {
  readonly address: Address
  readonly privateKey: Hex
}

/** Sends `data` to `to` from `from`; answers the receipt (reverted ones too: the gas is fixed, nothing estimated). */
export const sendCall = async (rpcUrl: string, from: TestAccount, to: Address, data: Hex) => {
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), transport: http(rpcUrl) })
  const hash = await wallet.sendTransaction({ chain: null, to, data, gas: 500_000n })
  return createPublicClient({ transport: http(rpcUrl) }).waitForTransactionReceipt({ hash })
}

/** A new buyer with `funds` TUSDC from `funder`, gas, and Permit2 approved on TUSDC. */
export const newPermit2Payer = async (chain: Chain.LocalChain.LocalChainInfo, funder: TestAccount, funds: bigint): Promise<TestAccount> => {
  const privateKey = generatePrivateKey()
  const account = { address: privateKeyToAccount(privateKey).address, privateKey }
  const rpcUrl = chain.node.rpcUrl
  await createPublicClient({ transport: http(rpcUrl) }).request({
    method: "anvil_setBalance" as never,
    params: [account.address, "0x8ac7230489e80000"] as never
  })
  const usdc = (functionName: "transfer" | "approve", to: Address, value: bigint) =>
    encodeFunctionData({ abi: Chain.Contracts.TestUsdc.abi, functionName, args: [to, value] })
  if (funds > 0n) await sendCall(rpcUrl, funder, chain.contracts.usdc, usdc("transfer", account.address, funds))
  await sendCall(rpcUrl, account, chain.contracts.usdc, usdc("approve", Chain.Permit2.permit2Address, maxUint256))
  return account
}
