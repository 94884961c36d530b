/**
 * Reading a Chainlink-style (AggregatorV3) price feed with viem: `decimals` (read once per feed,
 * then cached: it never changes) and `latestRoundData`. A round is usable only when its answer is
 * positive, it is complete (`updatedAt` set, `answeredInRound ≥ roundId`) and it is fresh: not
 * older than `maxAgeSeconds` (nor more than a minute in the future). Anything else, an RPC failure
 * included, is "no price": the caller offers no option for the asset rather than a wrong one.
 *
 * @module
 */
import { Clock, Effect, Option } from "effect"
import { type Address, parseAbi, type PublicClient } from "viem"
import { rpc } from "../chain/RpcCall.ts"

/** The two AggregatorV3 functions the service reads. */
export const aggregatorV3Abi = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)"
])

/** Default maximum age of a round, in seconds (the heartbeat of most Chainlink USD feeds). */
export const defaultMaxAgeSeconds = 3600

/** Tolerated clock skew between the service and the chain, in seconds. */
const futureSkewSeconds = 60

/** A usable answer: `answer / 10^decimals` units of the feed's quote currency. */
export interface FeedAnswer {
  readonly answer: bigint
  readonly decimals: number
  /** Unix seconds. */
  readonly updatedAt: number
}

/** One feed on one chain. */
export interface FeedReader {
  /** The latest usable answer, or none (stale, incomplete, not positive, or unreadable). */
  readonly latest: (maxAgeSeconds: number) => Effect.Effect<Option.Option<FeedAnswer>>
}

/** A reader of the feed at `address` through `client` (chain `chainId`, CAIP-2, for messages). */
export const makeReader = (client: PublicClient, chainId: string, address: Address): FeedReader => {
  let decimals: number | undefined
  const where = `price feed ${address} on ${chainId}`
  const read = <A>(operation: string, call: () => Promise<A>) => rpc(chainId, `${operation} ${address}`, call)

  const latest = Effect.fn("PriceFeed.latest")(function*(maxAgeSeconds: number) {
    if (decimals === undefined) {
      decimals = yield* read("decimals", () => client.readContract({ address, abi: aggregatorV3Abi, functionName: "decimals" }))
    }
    const [roundId, answer, , updatedAt, answeredInRound] = yield* read(
      "latestRoundData",
      () => client.readContract({ address, abi: aggregatorV3Abi, functionName: "latestRoundData" })
    )
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const age = now - Number(updatedAt)
    if (answer <= 0n || updatedAt === 0n || answeredInRound < roundId) {
      yield* Effect.logWarning(`${where}: the latest round is incomplete or not positive; no price.`)
      return Option.none<FeedAnswer>()
    }
    if (age > maxAgeSeconds || age < -futureSkewSeconds) {
      yield* Effect.logWarning(`${where}: the latest round is ${age} s old (at most ${maxAgeSeconds} s); no price.`)
      return Option.none<FeedAnswer>()
    }
    return Option.some<FeedAnswer>({ answer, decimals, updatedAt: Number(updatedAt) })
  }, (effect) =>
    effect.pipe(
      Effect.catchTag("ChainRpcError", (error) =>
        Effect.as(Effect.logWarning(`${where}: cannot read it (${error.failure}: ${error.message}); no price.`), Option.none())
      )
    ))

  return { latest }
}
