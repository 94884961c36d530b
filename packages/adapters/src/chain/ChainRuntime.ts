/**
 * Everything the gateway keeps per configured chain: the RPC client, the executor's sender (one nonce
 * sequence), the token-domain cache and the executor's gas policy and budget. Built once when the gateway starts.
 *
 * @module
 */
import { Duration, Effect, type Scope } from "effect"
import type { PublicClient } from "viem"
import { ChainConfigError, type ChainSettings, rpcEndpoints } from "./ChainConfig.ts"
import { signerFor } from "./ChainSigners.ts"
import * as ExecutorSender from "./ExecutorSender.ts"
import { type GasBudget, type GasPolicy, makeBudget, policyOf } from "./GasPolicy.ts"
import { makeClient, rpc } from "./RpcCall.ts"
import * as TokenDomains from "./TokenDomains.ts"

/** One chain's resources. */
export interface ChainRuntime {
  readonly settings: ChainSettings
  /** CAIP-2, e.g. `eip155:8453`. */
  readonly chainId: string
  /** EIP-155 number, e.g. 8453. */
  readonly chainNumber: number
  readonly client: PublicClient
  readonly executor: ExecutorSender.ExecutorSender
  readonly domains: TokenDomains.TokenDomains
  /** The chain's gas ceilings and budget settings, defaults filled in. */
  readonly gas: GasPolicy
  /** The executor's gas budget for pull payments (in this process). */
  readonly budget: GasBudget
}

/** Options of {@link make}. */
export interface RuntimeOptions {
  /** Timeout of each JSON-RPC request; default 10 seconds. */
  readonly rpcTimeout?: Duration.Input | undefined
}

/**
 * Builds a chain's resources and, when its RPC answers within two seconds, checks that it serves the
 * configured chain (a wrong `rpcUrl` fails start-up). An RPC that does not answer yet only logs a
 * warning: the service starts, and calls on that chain report `unknown` until it comes back.
 */
export const make = Effect.fnUntraced(function*(
  settings: ChainSettings,
  options: RuntimeOptions = {}
): Effect.fn.Return<ChainRuntime, ChainConfigError, Scope.Scope> {
  const chainId = settings.chainId
  const chainNumber = Number(chainId.slice(chainId.indexOf(":") + 1))
  const client = makeClient(rpcEndpoints(settings), { timeout: options.rpcTimeout })
  const served = yield* rpc(chainId, "eth_chainId", () => client.getChainId()).pipe(
    Effect.timeout(Duration.seconds(2)),
    Effect.option
  )
  if (served._tag === "None") {
    yield* Effect.logWarning(`Chain ${chainId}: the RPC does not answer yet; continuing.`)
  } else if (served.value !== chainNumber) {
    return yield* new ChainConfigError({
      message: `Chain ${chainId}: its rpcUrl serves chain id ${served.value}, not ${chainNumber}.`
    })
  }
  // Shared: deposit sweeps send from the executor account too (one nonce sequence per account).
  const signer = yield* signerFor(settings, "executor").pipe(
    Effect.mapError((error) => new ChainConfigError({ message: `Chain ${chainId}: the executor's signer: ${error.message}` }))
  )
  const executor = yield* ExecutorSender.shared({ chainId, client, signer: signer!, rpcUrl: settings.rpcUrl })
  const domains = yield* TokenDomains.make({ chainId, client })
  const gas = policyOf(settings.gas, settings.testnet)
  return { settings, chainId, chainNumber, client, executor, domains, gas, budget: makeBudget(chainId, gas) }
})
