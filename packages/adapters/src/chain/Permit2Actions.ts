/**
 * The wallet actions of a Permit2 option (a pull payment in a token without EIP-3009, see
 * `Permit2.ts`), in the order the wallet runs them:
 *
 * 1. only when the buyer's allowance to Permit2 (read now) is below the amount: `eth_sendTransaction`
 *    `approve(Permit2, 2^256 - 1)` on the token, once for all later payments (Permit2 moves nothing
 *    without a permit the buyer signs, for one spender, amount and deadline), preceded by
 *    `approve(Permit2, 0)` when the allowance is not zero, since USDT (and tokens like it) refuse to
 *    change a non-zero allowance to another non-zero one, and an approve of 0 is accepted by every ERC-20;
 * 2. `eth_signTypedData_v4` of the `PermitTransferFrom` for our executor.
 *
 * @module
 */
import type { Action } from "@paygate/domain"
import { Effect } from "effect"
import { type Address, type Hex, maxUint256, type PublicClient } from "viem"
import { allowanceAbi, approvePermit2Calldata, permit2Address, permitFor, permitTransferFromJson } from "./Permit2.ts"
import { rpc } from "./RpcCall.ts"

/** What a Permit2 option's actions are built from. */
export interface Permit2Option {
  /** CAIP-2. */
  readonly chainId: string
  readonly chainNumber: number
  readonly client: PublicClient
  readonly token: Address
  readonly payer: Address
  readonly value: bigint
  /** The chain's executor: the permit's spender. */
  readonly spender: Address
  readonly nonce: Hex
  /** Unix seconds. */
  readonly validBefore: number
}

/** What the approve step allows Permit2: everything, so that later payments need the signature only. */
export const permit2Allowance = maxUint256

/** The approve transactions the buyer must send first, given its allowance to Permit2. */
export const approvalsNeeded = (allowance: bigint, value: bigint): ReadonlyArray<bigint> =>
  allowance >= value ? [] : allowance === 0n ? [permit2Allowance] : [0n, permit2Allowance]

/** The option's actions; reads the buyer's allowance to Permit2 on the token. */
export const permit2Actions = (option: Permit2Option) =>
  Effect.gen(function*() {
    const { chainId, client, token, payer, value } = option
    const allowance = yield* rpc(chainId, "allowance", () =>
      client.readContract({ address: token, abi: allowanceAbi, functionName: "allowance", args: [payer, permit2Address] }))
    const approvals: ReadonlyArray<Action> = approvalsNeeded(allowance, value).map((amount) => ({
      type: "walletRpc",
      data: {
        chain_id: chainId,
        method: "eth_sendTransaction",
        params: [{ from: payer, to: token, value: "0x0", data: approvePermit2Calldata(amount) }]
      }
    }))
    const permit = permitFor(token, value, option.spender, option.nonce, option.validBefore)
    const sign: Action = {
      type: "walletRpc",
      data: { chain_id: chainId, method: "eth_signTypedData_v4", params: [payer, permitTransferFromJson(option.chainNumber, permit)] }
    }
    return [...approvals, sign]
  })
