/**
 * JSON-RPC access for one chain: a viem public client with a bounded timeout, and {@link rpc} to run
 * one of its calls as an Effect whose failure is a {@link ChainRpcError}: classified (the node reverted,
 * the node refused, or no answer) and never carrying the RPC URL, which often embeds an API key.
 *
 * @module
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  ExecutionRevertedError,
  http,
  type PublicClient,
  RpcRequestError
} from "viem"
import { recordChainRpcError } from "../ProcessMetrics.ts"

/**
 * Why a call failed: `reverted` (the EVM reverted, e.g. in `eth_estimateGas`), `rejected` (the node
 * answered with a JSON-RPC error, e.g. "nonce too low"), `unavailable` (no answer: network, timeout,
 * HTTP error). Only `unavailable` leaves the chain's state unknown.
 */
export const ChainRpcFailure = Schema.Literals(["reverted", "rejected", "unavailable"])

/** Why a call failed; see {@link ChainRpcFailure}. */
export type ChainRpcFailure = typeof ChainRpcFailure.Type

/** A JSON-RPC call failed. */
export class ChainRpcError extends Schema.TaggedError<ChainRpcError>()("ChainRpcError", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  /** What was being done, e.g. `eth_getTransactionReceipt`. */
  operation: Schema.String,
  failure: ChainRpcFailure,
  /** viem's short message and the node's details, without the URL or the request body. */
  message: Schema.String
}) {}

/** Options of {@link makeClient}. */
export interface ClientOptions {
  /** Per-request timeout; default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * A viem public client for `rpcUrl` over HTTP. viem's own retries are off: callers retry with
 * Effect. Calls made in the same tick (concurrent confirms, the executor's submissions and receipt
 * checks) go out as one JSON-RPC batch: one HTTP request instead of one each, which cut the
 * service's CPU per accepted confirm by about a quarter under load (`BENCHMARKS.md`). Each call
 * still gets its own answer or error.
 */
export const makeClient = (rpcUrl: Redacted.Redacted<string>, options: ClientOptions = {}): PublicClient =>
  createPublicClient({
    transport: http(Redacted.value(rpcUrl), {
      timeout: Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))),
      retryCount: 0,
      batch: { wait: 0 }
    })
  })

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

/** viem's short message plus the node's details; its long message would repeat the URL and the request. */
export const describeError = (error: unknown): string => {
  if (error instanceof BaseError) {
    return error.details && error.details !== error.shortMessage
      ? `${error.shortMessage} ${error.details}`
      : error.shortMessage
  }
  return error instanceof Error ? error.name : "unknown error"
}

/**
 * Runs one RPC call of `chainId` (CAIP-2); a rejection becomes a {@link ChainRpcError}, counted in
 * `paygate_chain_rpc_errors_total` (`ProcessMetrics`).
 */
export const rpc = <A>(chainId: string, operation: string, call: () => Promise<A>): Effect.Effect<A, ChainRpcError> =>
  Effect.tryPromise({
    try: call,
    catch: (cause) => new ChainRpcError({ chainId, operation, failure: classify(cause), message: describeError(cause) })
  }).pipe(Effect.tapError((error) => recordChainRpcError(error.chainId, error.operation, error.failure)))
