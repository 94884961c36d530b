/**
 * Reads of one configured token that x402 needs besides the payment path: its EIP-712 domain name
 * and version (what an x402 client signs with) and an account's balance. An unknown token or
 * account is a defect (the caller picked them from the configuration); an RPC that cannot answer
 * is the domain's `ChainUnavailable`.
 *
 * @module
 */
import { Caip, ChainUnavailable } from "@paygate/domain"
import { Duration, Effect, Result, Schedule } from "effect"
import type { Address } from "viem"
import { type Chains, lookupAsset } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"

/** What the reads work with. */
export interface TokenReadContext {
  readonly chains: Chains
  readonly runtimes: ReadonlyMap<string, ChainRuntime>
}

const retries = Schedule.exponential(Duration.millis(200))

const target = (context: TokenReadContext, asset: string) => {
  const found = lookupAsset(context.chains, asset)
  const runtime = found === undefined ? undefined : context.runtimes.get(found.chain.chainId)
  if (found === undefined || runtime === undefined) return Effect.die(new Error(`${asset} is not a configured token`))
  return Effect.succeed({ runtime, token: found.token })
}

const unavailable = (chainId: string) => (error: ChainRpcError) =>
  new ChainUnavailable({ chainId, message: `Cannot read ${chainId}: ${error.message}` })

/** The token's EIP-712 domain name and version (`ChainGateway.tokenDomain`). */
export const tokenDomain = Effect.fn("ChainGateway.tokenDomain")(function*(context: TokenReadContext, asset: string) {
  const { runtime, token } = yield* target(context, asset)
  const domain = yield* runtime.domains.get(token).pipe(
    Effect.retry({ schedule: retries, times: 2, while: (error) => error._tag === "ChainRpcError" && error.failure === "unavailable" }),
    Effect.catchTag("ChainRpcError", (error) => Effect.fail(unavailable(runtime.chainId)(error))),
    Effect.catchTag("TokenDomainError", Effect.die)
  )
  return { name: domain.name, version: domain.version }
})

/** The balance of a CAIP-10 account in the token (`ChainGateway.balanceOf`). */
export const tokenBalance = Effect.fn("ChainGateway.balanceOf")(function*(context: TokenReadContext, asset: string, account: string) {
  const { runtime, token } = yield* target(context, asset)
  const parsed = Caip.validateAccountId(account)
  if (Result.isFailure(parsed)) return yield* Effect.die(new Error(`${account} is not a CAIP-10 account`))
  return yield* rpc(runtime.chainId, "balanceOf", () =>
    runtime.client.readContract({ address: token, abi: eip3009TokenAbi, functionName: "balanceOf", args: [parsed.success.address as Address] })).pipe(
      Effect.retry({ schedule: retries, times: 2, while: (error) => error.failure === "unavailable" }),
      Effect.mapError(unavailable(runtime.chainId))
    )
})
