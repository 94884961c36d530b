/**
 * The configured price oracle on a real anvil chain with the deployed TestPriceFeed (8 decimals,
 * initially 2000): pegs, exact rates from the feed, fx feeds for pegged tokens, stale and bad rounds.
 */
import { Money, type Pricing, PriceOracle } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { encodeFunctionData } from "viem"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { TestPriceFeed } from "../../src/chain/contracts.generated.ts"
import * as ExecutorSender from "../../src/chain/ExecutorSender.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import * as ConfiguredPriceOracle from "../../src/pricing/ConfiguredPriceOracle.ts"
import { localClient } from "../chain/support/ChainTest.ts"
import { fromPrivateKey } from "../../src/chain/TransactionSigner.ts"

// A token priced by the feed (any address: the oracle never calls the token).
const teth = "0x00000000000000000000000000000000000e7e01"
const noFeed = "0x00000000000000000000000000000000000fee00"

/** The local chain's configuration plus TETH (priced by the feed) and fx feeds on TUSDC. */
const oracleLayer = Layer.unwrap(
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const base = LocalChain.settingsFor(chain, 1)
    const [usdc] = base.assets
    const settings = {
      chains: base.chains,
      assets: [
        {
          ...usdc!,
          pricing: {
            kind: "peg",
            currency: "USD",
            fxFeeds: [
              { currency: "EUR", address: chain.contracts.priceFeed },
              { currency: "CHF", address: noFeed }
            ]
          }
        },
        {
          ...usdc!,
          assetId: `${chain.chainId}/erc20:${teth}`,
          symbol: "TETH",
          name: "Test Ether",
          decimals: 18,
          eip3009: false,
          pricing: { kind: "priceFeed", address: chain.contracts.priceFeed, currency: "USD", maxAgeSeconds: 600 }
        }
      ]
    }
    return ConfiguredPriceOracle.layer.pipe(Layer.provide(ChainConfig.layer(settings)))
  })
)

const rate = (numerator: bigint, denominator: bigint): Option.Option<Pricing> =>
  Option.some({ _tag: "Rate", rate: new Money.Rate({ numerator, denominator }) })

const setAnswer = (answer: bigint) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const client = yield* localClient
    // The deployer (anvil #0) owns the feed.
    const sender = yield* ExecutorSender.make({ chainId: chain.chainId, client, signer: fromPrivateKey(Redacted.make(anvilAccount(0).privateKey)) })
    const data = encodeFunctionData({ abi: TestPriceFeed.abi, functionName: "setAnswer", args: [answer] })
    const hash = yield* Effect.orDie(sender.send({ to: chain.contracts.priceFeed, data, gas: 200_000n }))
    yield* Effect.promise(() => client.waitForTransactionReceipt({ hash, pollingInterval: 50 }))
  })

layer(LocalChain.layer(), { excludeTestServices: true, timeout: "60 seconds" })("ConfiguredPriceOracle on anvil", (it) => {
  it.effect("pegged stablecoins, exact rates from the feed, fx feeds, and no price otherwise", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const oracle = yield* PriceOracle
      const tusdc = chain.usdcAssetId
      const tethId = `${chain.chainId}/erc20:${teth}`
      assert.deepStrictEqual(yield* oracle.pricing("USD", tusdc), Option.some({ _tag: "Peg" } as Pricing))
      // The asset id matches in any address case.
      assert.deepStrictEqual(yield* oracle.pricing("USD", tusdc.toLowerCase()), Option.some({ _tag: "Peg" } as Pricing))
      // EUR through the fx feed: 2000 USD per EUR, so 2000 tokens per EUR.
      assert.deepStrictEqual(yield* oracle.pricing("EUR", tusdc), rate(2000n * 10n ** 8n, 10n ** 8n))
      // A configured fx feed with no contract behind it: no price, no failure.
      assert.isTrue(Option.isNone(yield* oracle.pricing("CHF", tusdc)))
      assert.isTrue(Option.isNone(yield* oracle.pricing("GBP", tusdc)))
      // The feed answers USD per TETH: tokens per USD = 10^8 / answer.
      assert.deepStrictEqual(yield* oracle.pricing("USD", tethId), rate(10n ** 8n, 2000n * 10n ** 8n))
      assert.isTrue(Option.isNone(yield* oracle.pricing("EUR", tethId)))
      assert.isTrue(Option.isNone(yield* oracle.pricing("USD", `${chain.chainId}/erc20:${noFeed}`)))
      assert.isTrue(Option.isNone(yield* oracle.pricing("USD", "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")))

      // A new round is used at once; a round that is not positive is no price.
      yield* setAnswer(123_456_789_012n)
      assert.deepStrictEqual(yield* oracle.pricing("USD", tethId), rate(10n ** 8n, 123_456_789_012n))
      yield* setAnswer(0n)
      assert.isTrue(Option.isNone(yield* oracle.pricing("USD", tethId)))
      yield* setAnswer(-5n)
      assert.isTrue(Option.isNone(yield* oracle.pricing("EUR", tusdc)))
      yield* setAnswer(2000n * 10n ** 8n)
      assert.deepStrictEqual(yield* oracle.pricing("USD", tethId), rate(10n ** 8n, 2000n * 10n ** 8n))
    }).pipe(Effect.provide(oracleLayer)))

  it.effect("a round older than the maximum age is stale: no price", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const oracle = yield* PriceOracle
      const tethId = `${chain.chainId}/erc20:${teth}`
      const now = Date.now()
      yield* TestClock.setTime(now)
      assert.isTrue(Option.isSome(yield* oracle.pricing("USD", tethId)))
      // TETH allows 600 s, the EUR fx feed the default 3600 s.
      yield* TestClock.setTime(now + 605_000)
      assert.isTrue(Option.isNone(yield* oracle.pricing("USD", tethId)))
      assert.isTrue(Option.isSome(yield* oracle.pricing("EUR", chain.usdcAssetId)))
      yield* TestClock.setTime(now + 3605_000)
      assert.isTrue(Option.isNone(yield* oracle.pricing("EUR", chain.usdcAssetId)))
      // Pegs involve no feed: never stale.
      assert.isTrue(Option.isSome(yield* oracle.pricing("USD", chain.usdcAssetId)))
    }).pipe(Effect.provide(oracleLayer), Effect.provide(TestClock.layer())))
})
