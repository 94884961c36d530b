import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { readable } from "../../src/SqlPayoutLimits.ts"

const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
const assetId = `eip155:31337/erc20:${token}`

const chain = {
  chainId: "eip155:31337",
  testnet: true,
  rpcUrl: "https://rpc.example/v1",
  requiredConfirmations: 2,
  executorPrivateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  collectionAddress: "0xa0ee7a142d267c1f36714e4a8f75612f20a79720"
}
const asset = {
  assetId,
  decimals: 6,
  symbol: "TUSDC",
  name: "Test USD Coin",
  iconUrl: "https://example.com/tusdc.svg",
  networkName: "Anvil",
  eip3009: true,
  pricing: { kind: "peg", currency: "USD" }
}

const withLimits = (limits: unknown) => ({ chains: [{ ...chain, limits }], assets: [asset] })
const problems = (limits: unknown) => Effect.map(Effect.flip(ChainConfig.decode(withLimits(limits))), (error) => error.message)

describe("Payout limits in the chain configuration", () => {
  it.effect("decodes amounts in the token's units to exact base units, by symbol or by asset id", () =>
    Effect.gen(function*() {
      const bySymbol = yield* ChainConfig.decode(withLimits({ TUSDC: { perPayout: "5000", perRefund: "1000.50", perDay: "123456789012345.654321" } }))
      assert.deepStrictEqual(bySymbol.limits.get(assetId), { perPayout: 5_000_000_000n, perRefund: 1_000_500_000n, perDay: 123_456_789_012_345_654_321n })
      const byId = yield* ChainConfig.decode(withLimits({ [assetId.toUpperCase().replace("EIP155", "eip155").replace("ERC20:0X", "erc20:0x")]: { perDay: "0.000001" } }))
      assert.deepStrictEqual(byId.limits.get(assetId), { perDay: 1n })
      const none = yield* ChainConfig.decode({ chains: [chain], assets: [asset] })
      assert.strictEqual(none.limits.size, 0)
    }))

  it.effect("refuses more decimals than the token has, negatives, garbage and unknown tokens, each with its path", () =>
    Effect.gen(function*() {
      assert.match(yield* problems({ TUSDC: { perRefund: "1000.1234567" } }), /"1000\.1234567" has 7 decimals; the token has 6\n {2}at \["chains"\]\[0\]\["limits"\]\["TUSDC"\]\["perRefund"\]/)
      assert.match(yield* problems({ TUSDC: { perPayout: "-5" } }), /"-5" is not an amount: write a non-negative decimal.*\n {2}at \["chains"\]\[0\]\["limits"\]\["TUSDC"\]\["perPayout"\]/)
      for (const garbage of ["1e6", "1,000", " 10", "0x10", "", "1.", ".5", "ten"]) {
        assert.match(yield* problems({ TUSDC: { perDay: garbage } }), /is not an amount/, garbage)
      }
      assert.match(yield* problems({ USDT: { perDay: "1" } }), /no token USDT is configured on eip155:31337 \(its tokens: TUSDC\)\n {2}at \["chains"\]\[0\]\["limits"\]\["USDT"\]/)
      assert.match(yield* problems({ TUSDC: { perDay: 1000 } }), /perDay/)
    }))

  it("shows amounts as people read them", () => {
    assert.strictEqual(readable(1_500_000_000n, 6), "1,500.00")
    assert.strictEqual(readable(1_000_500_000n, 6), "1,000.50")
    assert.strictEqual(readable(1n, 6), "0.000001")
    assert.strictEqual(readable(1_234_567n, 0), "1,234,567")
  })
})
