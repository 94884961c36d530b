import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import * as ChainSource from "../../src/chain/ChainSource.ts"
import * as NativeAsset from "../../src/chain/NativeAsset.ts"
import { readable } from "../../src/SqlPayoutLimits.ts"

const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3"

const chain = {
  chainId: "eip155:31337",
  testnet: true,
  rpcUrl: "https://rpc.example/v1/secret-api-key",
  requiredConfirmations: 2,
  executorPrivateKey: key,
  collectionAddress: "0xa0ee7a142d267c1f36714e4a8f75612f20a79720"
}
const asset = {
  assetId: `eip155:31337/erc20:${token}`,
  decimals: 6,
  symbol: "TUSDC",
  name: "Test USD Coin",
  iconUrl: "https://example.com/tusdc.svg",
  networkName: "Anvil",
  eip3009: true,
  pricing: { kind: "peg", currency: "USD" }
}

const problems = (input: unknown) => Effect.map(Effect.flip(ChainConfig.decode(input)), (error) => error.message)

describe("ChainConfig", () => {
  it.effect("decodes a configuration: checksum addresses, redacted secrets, indexed lookups", () =>
    Effect.gen(function*() {
      const feedAsset = {
        ...asset,
        assetId: "eip155:31337/erc20:0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
        eip3009: false,
        pricing: { kind: "priceFeed", address: "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0", currency: "USD" }
      }
      const chains = yield* ChainConfig.decode({ chains: [chain], assets: [asset, feedAsset] })
      const settings = chains.chains.get("eip155:31337")
      assert.isDefined(settings)
      assert.strictEqual(settings?.collectionAddress, "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720")
      assert.strictEqual(Redacted.value(settings!.executorPrivateKey!), key)
      assert.strictEqual(Redacted.value(settings!.rpcUrl), chain.rpcUrl)
      // Secrets never show in logs or errors.
      assert.notInclude(JSON.stringify(chains.settings), key.slice(2))
      assert.notInclude(String(settings!.rpcUrl), "secret-api-key")

      const found = ChainConfig.lookupAsset(chains, `eip155:31337/erc20:${token.toUpperCase().replace("0X", "0x")}`)
      assert.strictEqual(found?.token, "0x5FbDB2315678afecb367f032d93F642f64180aa3")
      assert.strictEqual(found?.asset.symbol, "TUSDC")
      const feed = ChainConfig.lookupAsset(chains, feedAsset.assetId)?.asset.pricing
      assert.deepStrictEqual(feed, {
        kind: "priceFeed",
        address: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
        currency: "USD"
      } as unknown as typeof feed)
      assert.isUndefined(ChainConfig.lookupAsset(chains, "eip155:1/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3"))
      assert.isUndefined(ChainConfig.lookupAsset(chains, "not an asset"))
    }))

  it.effect("a chain's native asset: accepted as slip44, looked up as the native marker, one per chain, never EIP-3009", () =>
    Effect.gen(function*() {
      const ether = {
        ...asset,
        assetId: "eip155:31337/slip44:60",
        decimals: 18,
        symbol: "ETH",
        eip3009: false,
        pricing: { kind: "priceFeed", address: "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0", currency: "USD" }
      }
      const chains = yield* ChainConfig.decode({ chains: [chain], assets: [asset, ether] })
      assert.strictEqual(ChainConfig.lookupAsset(chains, ether.assetId)?.token, NativeAsset.nativeToken)
      const message = yield* problems({ chains: [chain], assets: [asset, { ...ether, eip3009: true }, { ...ether, assetId: "eip155:31337/slip44:966" }] })
      assert.match(message, /a native asset has no EIP-3009 authorizations: set false\n {2}at \["assets"\]\[1\]\["eip3009"\]/)
      assert.match(message, /chain eip155:31337 has a native asset already\n {2}at \["assets"\]\[2\]\["assetId"\]/)
    }))

  it.effect("an empty configuration is valid (no crypto payments)", () =>
    Effect.gen(function*() {
      const chains = yield* ChainConfig.decode({ chains: [], assets: [] })
      assert.strictEqual(chains.chains.size, 0)
    }))

  it.effect("lists every problem of a wrong configuration with its path, without repeating secrets", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        chains: [
          {
            ...chain,
            rpcUrl: "ftp://rpc.example",
            requiredConfirmations: 0,
            executorPrivateKey: "0x1234",
            collectionAddress: "0xA0ee7A142d267C1f36714E4a8F75612F20a79721"
          },
          { ...chain, chainId: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" },
          { ...chain, collectionAddress: "0x0000000000000000000000000000000000000000" }
        ],
        assets: [
          { ...asset, assetId: "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" },
          { ...asset, assetId: "eip155:31337/erc721:0x06012c8cf97bead5deae237070f9587f8e7a266d/1", iconUrl: "javascript:x" },
          { ...asset, pricing: { kind: "priceFeed", address: "0x12", currency: "USD" } },
          { ...asset, symbol: " TUSDC", decimals: 6.5, pricing: { kind: "peg", currency: "usd" } }
        ]
      })
      for (
        const expected of [
          /Expected an http\(s\) URL\n {2}at \["chains"\]\[0\]\["rpcUrl"\]/,
          /between 1 and 10000\n {2}at \["chains"\]\[0\]\["requiredConfirmations"\]/,
          /secp256k1 private key.*\n {2}at \["chains"\]\[0\]\["executorPrivateKey"\]/,
          /wrong EIP-55 checksum.*\n {2}at \["chains"\]\[0\]\["collectionAddress"\]/,
          /only eip155 \(EVM\) chains are supported\n {2}at \["chains"\]\[1\]\["chainId"\]/,
          /the zero address is not allowed here\n {2}at \["chains"\]\[2\]\["collectionAddress"\]/,
          /only erc20 tokens and the native asset \(slip44\) on eip155 chains are supported\n {2}at \["assets"\]\[1\]\["assetId"\]/,
          /data:image\/ URL\n {2}at \["assets"\]\[1\]\["iconUrl"\]/,
          /not an address: it must be 0x followed by 40 hex digits\n {2}at \["assets"\]\[2\]\["pricing"\]\["address"\]/,
          /at \["assets"\]\[3\]\["symbol"\]/,
          /at \["assets"\]\[3\]\["decimals"\]/,
          /3 uppercase letters.*\n {2}at \["assets"\]\[3\]\["pricing"\]\["currency"\]/
        ]
      ) assert.match(message, expected)
      assert.notInclude(message, "0x1234", "a private key, even a wrong one, is never repeated")
    }))

  it.effect("rules across entries: assets on unknown chains, duplicate chains and assets", () =>
    Effect.gen(function*() {
      const message = yield* problems({
        chains: [chain, { ...chain }],
        assets: [
          asset,
          { ...asset, assetId: asset.assetId.toUpperCase().replace("EIP155", "eip155").replace("ERC20:0X", "erc20:0x") },
          { ...asset, assetId: "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" }
        ]
      })
      assert.match(message, /chain eip155:31337 is configured twice\n {2}at \["chains"\]\[1\]\["chainId"\]/)
      assert.match(message, /asset eip155:31337\/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3 is configured twice\n {2}at \["assets"\]\[1\]\["assetId"\]/)
      assert.match(message, /chain eip155:8453 is not configured under "chains"\n {2}at \["assets"\]\[2\]\["assetId"\]/)
    }))

  it.effect("collectionPrivateKey is optional, redacted, and must be the key of collectionAddress", () =>
    Effect.gen(function*() {
      const collectionKey = anvilAccount(9).privateKey
      const chains = yield* ChainConfig.decode({ chains: [{ ...chain, collectionPrivateKey: collectionKey }], assets: [asset] })
      const settings = chains.chains.get("eip155:31337")!
      assert.strictEqual(Redacted.value(settings.collectionPrivateKey!), collectionKey)
      assert.notInclude(JSON.stringify(chains.settings), collectionKey.slice(2))
      const without = yield* ChainConfig.decode({ chains: [chain], assets: [asset] })
      assert.isUndefined(without.chains.get("eip155:31337")!.collectionPrivateKey, "without it the chain cannot pay out")

      const message = yield* problems({ chains: [{ ...chain, collectionPrivateKey: key }], assets: [asset] })
      assert.match(
        message,
        /it is the key of 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, not of collectionAddress 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720\n {2}at \["chains"\]\[0\]\["collectionPrivateKey"\]/
      )
      assert.notInclude(message, key.slice(2))
      const malformed = yield* problems({ chains: [{ ...chain, collectionPrivateKey: "0x1234" }], assets: [asset] })
      assert.match(malformed, /secp256k1 private key.*\n {2}at \["chains"\]\[0\]\["collectionPrivateKey"\]/)
      assert.notInclude(malformed, "0x1234")
    }))

  it.effect("every chain says whether it is a test network; one that does not is refused in one line", () =>
    Effect.gen(function*() {
      const { testnet: _, ...undeclared } = chain
      const message = yield* problems({ chains: [{ ...chain, chainId: "eip155:84532" }, undeclared], assets: [asset] })
      assert.strictEqual(
        message,
        'chains[1] (eip155:31337) does not say whether it is a test network: add "testnet": true (sandbox payments only) or "testnet": false (a real network: live payments only).'
      )
      assert.match(yield* problems({ chains: [{ ...chain, testnet: "yes" }], assets: [asset] }), /at \["chains"\]\[0\]\["testnet"\]/)
      const chains = yield* ChainConfig.decode({ chains: [chain, { ...chain, chainId: "eip155:8453", testnet: false }], assets: [asset] })
      assert.strictEqual(ChainConfig.chainMode(chains.chains.get("eip155:31337")!), "sandbox")
      assert.strictEqual(ChainConfig.chainMode(chains.chains.get("eip155:8453")!), "live")
    }))

  it.effect("PAYGATE_CHAINS cannot declare a known real network a test network, nor the reverse", () =>
    Effect.gen(function*() {
      const start = (chains: ReadonlyArray<unknown>) =>
        Effect.scoped(Layer.build(ChainSource.layer.pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ [ChainConfig.envVar]: JSON.stringify({ chains, assets: [] }) })))
        )))
      const base = yield* Effect.flip(start([{ ...chain, chainId: "eip155:8453", testnet: true }]))
      assert.strictEqual(base.message, 'eip155:8453 is Base, a real network: declare it "testnet": false (sandbox payments never use it).')
      const sepolia = yield* Effect.flip(start([{ ...chain, chainId: "eip155:84532", testnet: false }]))
      assert.strictEqual(sepolia.message, 'eip155:84532 is Base Sepolia, a test network: declare it "testnet": true.')
      yield* start([chain, { ...chain, chainId: "eip155:8453", testnet: false }])
    }))

  it.effect("layerFromEnv reads PAYGATE_CHAINS and refuses invalid JSON", () =>
    Effect.gen(function*() {
      const withEnv = (value: string) =>
        Effect.provide(
          Effect.map(ChainConfig.ChainsConfig, (chains) => chains),
          ChainConfig.layerFromEnv.pipe(
            Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ [ChainConfig.envVar]: value })))
          )
        )
      const chains = yield* withEnv(JSON.stringify({ chains: [chain], assets: [asset] }))
      assert.strictEqual(chains.assets.size, 1)
      const error = yield* Effect.flip(withEnv("{not json"))
      assert.strictEqual(error._tag, "ChainConfigError")
      assert.match(error.message, /PAYGATE_CHAINS is not valid JSON/)
    }))
})

const withLimits = (limits: unknown) => ({ chains: [{ ...chain, limits }], assets: [asset] })
const limitProblems = (limits: unknown) => problems(withLimits(limits))

describe("ChainConfig: payout limits", () => {
  it.effect("decodes amounts in the token's units to exact base units, by symbol or by asset id", () =>
    Effect.gen(function*() {
      const bySymbol = yield* ChainConfig.decode(withLimits({ TUSDC: { perPayout: "5000", perRefund: "1000.50", perDay: "123456789012345.654321" } }))
      assert.deepStrictEqual(bySymbol.limits.get(asset.assetId), { perPayout: 5_000_000_000n, perRefund: 1_000_500_000n, perDay: 123_456_789_012_345_654_321n })
      const byId = yield* ChainConfig.decode(withLimits({ [asset.assetId.toUpperCase().replace("EIP155", "eip155").replace("ERC20:0X", "erc20:0x")]: { perDay: "0.000001" } }))
      assert.deepStrictEqual(byId.limits.get(asset.assetId), { perDay: 1n })
      const none = yield* ChainConfig.decode({ chains: [chain], assets: [asset] })
      assert.strictEqual(none.limits.size, 0)
    }))

  it.effect("refuses more decimals than the token has, negatives, garbage and unknown tokens, each with its path", () =>
    Effect.gen(function*() {
      assert.match(yield* limitProblems({ TUSDC: { perRefund: "1000.1234567" } }), /"1000\.1234567" has 7 decimals; the token has 6\n {2}at \["chains"\]\[0\]\["limits"\]\["TUSDC"\]\["perRefund"\]/)
      assert.match(yield* limitProblems({ TUSDC: { perPayout: "-5" } }), /"-5" is not an amount: write a non-negative decimal.*\n {2}at \["chains"\]\[0\]\["limits"\]\["TUSDC"\]\["perPayout"\]/)
      for (const garbage of ["1e6", "1,000", " 10", "0x10", "", "1.", ".5", "ten"]) {
        assert.match(yield* limitProblems({ TUSDC: { perDay: garbage } }), /is not an amount/, garbage)
      }
      assert.match(yield* limitProblems({ USDT: { perDay: "1" } }), /no token USDT is configured on eip155:31337 \(its tokens: TUSDC\)\n {2}at \["chains"\]\[0\]\["limits"\]\["USDT"\]/)
      assert.match(yield* limitProblems({ TUSDC: { perDay: 1000 } }), /perDay/)
    }))

  it("shows amounts as people read them", () => {
    assert.strictEqual(readable(1_500_000_000n, 6), "1,500.00")
    assert.strictEqual(readable(1_000_500_000n, 6), "1,000.50")
    assert.strictEqual(readable(1n, 6), "0.000001")
    assert.strictEqual(readable(1_234_567n, 0), "1,234,567")
  })
})
