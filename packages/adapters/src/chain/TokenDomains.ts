/**
 * The EIP-712 signing domain of EIP-3009 tokens, read from the token (`name()`, `version()`) and
 * cached per token. When the token also exposes `DOMAIN_SEPARATOR()`, the domain built from what
 * was read must hash to it: otherwise every signature would be checked against the wrong domain,
 * so the lookup fails instead.
 *
 * @module
 */
import { Cache, Duration, Effect, Exit, Schema } from "effect"
import { type Address, domainSeparator, type PublicClient } from "viem"
import { eip3009TokenAbi, type TokenDomain } from "./Eip3009.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"

/** The token does not expose a usable EIP-712 domain (not EIP-3009, or an unexpected domain layout). */
export class TokenDomainError extends Schema.TaggedError<TokenDomainError>()("TokenDomainError", {
  message: Schema.String
}) {}

/** Looks up token domains on one chain. */
export interface TokenDomains {
  readonly get: (token: Address) => Effect.Effect<TokenDomain, ChainRpcError | TokenDomainError>
}

/** Options of {@link make}. */
export interface TokenDomainsOptions {
  /** CAIP-2 chain id, e.g. `eip155:1`. */
  readonly chainId: string
  readonly client: PublicClient
  /** How long a domain is trusted before it is read again (tokens behind proxies can be upgraded); default 1 hour. */
  readonly timeToLive?: Duration.Input | undefined
}

/** A cached domain reader for one chain. Failed reads are not cached. */
export const make = (options: TokenDomainsOptions): Effect.Effect<TokenDomains> =>
  Effect.gen(function*() {
    const { chainId, client } = options
    const chainNumber = Number(chainId.slice(chainId.indexOf(":") + 1))
    const read = <F extends "name" | "version" | "DOMAIN_SEPARATOR">(token: Address, functionName: F) =>
      rpc(chainId, functionName, () => client.readContract({ address: token, abi: eip3009TokenAbi, functionName }))

    const lookup = Effect.fnUntraced(function*(token: Address): Effect.fn.Return<
      TokenDomain,
      ChainRpcError | TokenDomainError
    > {
      const [name, version, separator] = yield* Effect.all([
        read(token, "name"),
        read(token, "version"),
        // Optional in EIP-3009; a revert means "not exposed", anything else is an RPC failure.
        read(token, "DOMAIN_SEPARATOR").pipe(
          Effect.catchIf((error: ChainRpcError) => error.failure === "reverted", () => Effect.succeed(undefined))
        )
      ], { concurrency: "unbounded" }).pipe(
        Effect.catchIf(
          (error): error is ChainRpcError => error.failure === "reverted",
          () => Effect.fail(new TokenDomainError({ message: `Token ${token} on ${chainId} has no name() or version().` }))
        )
      )
      const domain: TokenDomain = { name, version, chainId: chainNumber, verifyingContract: token }
      if (separator !== undefined && domainSeparator({ domain }) !== separator) {
        return yield* new TokenDomainError({
          message: `Token ${token} on ${chainId}: DOMAIN_SEPARATOR() is not the hash of {name: ${
            JSON.stringify(name)
          }, version: ${JSON.stringify(version)}, chainId: ${chainNumber}, verifyingContract}.`
        })
      }
      return domain
    })

    const ttl = Duration.fromInputUnsafe(options.timeToLive ?? Duration.hours(1))
    const cache = yield* Cache.makeWith(lookup, {
      capacity: 1_000,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
    })
    return { get: (token: Address) => Cache.get(cache, token) }
  })
