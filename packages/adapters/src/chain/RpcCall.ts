/**
 * JSON-RPC access for one chain: a viem public client with a bounded timeout, and {@link rpc} to run
 * one of its calls as an Effect whose failure is a {@link ChainRpcError}: classified (the node reverted,
 * the node refused, or no answer) and never carrying the RPC URL, which often embeds an API key.
 *
 * @module
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import { BaseError, createPublicClient, http, type PublicClient } from "viem"
import { ProcessMetrics } from "@paygate/observability"
import { QuorumDisagreement, type QuorumEndpoints, quorumTransport } from "./QuorumTransport.ts"
import { ChainRpcFailure, classify } from "./RpcFailure.ts"

export { ChainRpcFailure, classify } from "./RpcFailure.ts"

/** A JSON-RPC call failed. */
export class ChainRpcError extends Schema.TaggedError<ChainRpcError>()("ChainRpcError", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  /** What was being done, e.g. `eth_getTransactionReceipt`. */
  operation: Schema.String,
  failure: ChainRpcFailure,
  /** viem's short message and the node's details, without the URL or the request body. */
  message: Schema.String,
  /** The chain's RPC providers answered, but no quorum of them alike. */
  disagreement: Schema.optionalKey(Schema.Boolean)
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
 * still gets its own answer or error. Several providers with a quorum go through
 * `QuorumTransport.ts`; one is the plain client.
 */
export const makeClient = (rpc: Redacted.Redacted<string> | QuorumEndpoints, options: ClientOptions = {}): PublicClient => {
  const timeout = Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10)))
  if (Redacted.isRedacted(rpc)) return createPublicClient({ transport: http(Redacted.value(rpc), { timeout, retryCount: 0, batch: { wait: 0 } }) })
  return rpc.urls.length === 1
    ? makeClient(rpc.urls[0]!, options)
    : createPublicClient({ transport: quorumTransport(rpc, timeout) })
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

/** The providers' disagreement behind `error`, when a quorum of them did not answer alike. */
const disagreementOf = (error: unknown): QuorumDisagreement | undefined => {
  if (error instanceof QuorumDisagreement) return error
  const found = error instanceof BaseError ? error.walk((e) => e instanceof QuorumDisagreement) : null
  return found instanceof QuorumDisagreement ? found : undefined
}

/**
 * Runs one RPC call of `chainId` (CAIP-2); a rejection becomes a {@link ChainRpcError}, counted in
 * `paygate_chain_rpc_errors_total` (`ProcessMetrics`). A disagreement of the chain's providers is
 * also counted in `paygate_chain_rpc_disagreements_total` and logged, naming the providers.
 */
export const rpc = <A>(chainId: string, operation: string, call: () => Promise<A>): Effect.Effect<A, ChainRpcError> =>
  Effect.tryPromise({
    try: call,
    catch: (cause) => {
      const disagreement = disagreementOf(cause)
      return disagreement === undefined
        ? new ChainRpcError({ chainId, operation, failure: classify(cause), message: describeError(cause) })
        : new ChainRpcError({ chainId, operation, failure: "unavailable", message: disagreement.message, disagreement: true })
    }
  }).pipe(Effect.tapError((error) =>
    Effect.andThen(
      ProcessMetrics.recordChainRpcError(error.chainId, error.operation, error.failure),
      error.disagreement === true
        ? Effect.andThen(ProcessMetrics.recordChainRpcDisagreement(error.chainId, error.operation), Effect.logWarning(`Chain ${error.chainId}: ${error.message}; its outcome waits until they agree.`))
        : Effect.void
    )
  ))
