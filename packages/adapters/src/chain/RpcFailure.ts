/**
 * Why a JSON-RPC call failed, from viem's error: the node reverted, the node refused, or no answer.
 * Shared by the single-call entry point (`RpcCall.ts`) and the quorum of providers
 * (`QuorumTransport.ts`), for which a node's refusal is an answer and no answer is not.
 *
 * @module
 */
import { Schema } from "effect"
import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, RpcRequestError } from "viem"

/**
 * Why a call failed: `reverted` (the EVM reverted, e.g. in `eth_estimateGas`), `rejected` (the node
 * answered with a JSON-RPC error, e.g. "nonce too low"), `unavailable` (no answer: network, timeout,
 * HTTP error). Only `unavailable` leaves the chain's state unknown.
 */
export const ChainRpcFailure = Schema.Literals(["reverted", "rejected", "unavailable"])

/** Why a call failed; see {@link ChainRpcFailure}. */
export type ChainRpcFailure = typeof ChainRpcFailure.Type

/** Classifies a viem error; see {@link ChainRpcFailure}. */
export const classify = (error: unknown): ChainRpcFailure => {
  if (!(error instanceof BaseError)) return "unavailable"
  if (error.walk((e) => e instanceof ExecutionRevertedError || e instanceof ContractFunctionRevertedError)) {
    return "reverted"
  }
  const answered = error.walk((e) => e instanceof RpcRequestError)
  if (answered instanceof RpcRequestError) return answered.code === ExecutionRevertedError.code ? "reverted" : "rejected"
  return "unavailable"
}
