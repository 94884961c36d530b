import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { AccountId } from "../../src/caip/AccountId.ts"
import { AssetId, assetChainId, formatAssetId, parseAssetId, sameChain } from "../../src/caip/AssetId.ts"
import type { ChainId } from "../../src/caip/ChainId.ts"

const dai = "0x6B175474E89094C44Da98b954EedeAC495271d0F"
const kitties = "0x06012c8cf97BEaD5deAe237070F9587f8E7A266d"

// The test cases of CAIP-19 itself (the DAI one is lower-case, so it is normalized below).
const specExamples = [
  "eip155:1/slip44:60",
  "bip122:000000000019d6689c085ae165831e93/slip44:0",
  "cosmos:cosmoshub-3/slip44:118",
  "bip122:12a765e31ffd4059bada1e25190f6e98/slip44:2",
  "cosmos:Binance-Chain-Tigris/slip44:714",
  "cosmos:iov-mainnet/slip44:234",
  "lip9:9ee11e9df416b18b/slip44:134",
  `eip155:1/erc721:${kitties}`,
  `eip155:1/erc721:${kitties}/771769`,
  "hedera:mainnet/nft:0.0.55492/12"
]

const form = 'expected the form "namespace:reference/asset_namespace:asset_reference[/token_id]"'
const invalid: ReadonlyArray<readonly [input: string, reason: string]> = [
  ["", form],
  ["eip155:1", form],
  ["eip155:1/", form],
  ["eip155:1/erc20", form],
  [`eip155:1/erc20:${dai}:x`, form],
  [`eip155:1/erc721:${kitties}/1/2`, form],
  [`eip155/erc20:${dai}`, 'expected the form "namespace:reference"'],
  [`EIP155:1/erc20:${dai}`, 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  [`eip155:01/erc20:${dai}`, "the eip155 chain reference must be a positive decimal chain id without leading zeros"],
  [`eip155:1/ERC20:${dai}`, 'the asset namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  [
    `chainstd:1/token:${"a".repeat(129)}`,
    'the asset reference must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"'
  ],
  [`eip155:1/erc721:${kitties}/`, 'the token id must be 1 to 78 characters of a-z, A-Z, 0-9, "-", "." or "%"'],
  [
    `eip155:1/erc721:${kitties}/${"1".repeat(79)}`,
    'the token id must be 1 to 78 characters of a-z, A-Z, 0-9, "-", "." or "%"'
  ],
  [
    "eip155:1/erc20:0x6b175474e89094c44da98b954eedeac495271d0",
    "the erc20 contract address must be 0x followed by 40 hex digits"
  ],
  ["eip155:1/erc20:dai", "the erc20 contract address must be 0x followed by 40 hex digits"],
  [
    "eip155:1/erc20:0x6B175474E89094C44Da98b954EedeAC495271d0f",
    "the erc20 contract address has a wrong EIP-55 checksum (mixed-case addresses must match it exactly)"
  ]
]

describe("AssetId", () => {
  it.effect("parses the CAIP-19 examples unchanged", () =>
    Effect.gen(function* () {
      for (const example of specExamples) {
        const parts = yield* parseAssetId(example, "asset")
        assert.strictEqual(formatAssetId(parts), example)
        assert.strictEqual(Schema.decodeUnknownSync(AssetId)(example), example)
      }
    })
  )

  it.effect("splits asset types and asset ids into their parts", () =>
    Effect.gen(function* () {
      const assetType = yield* parseAssetId("cosmos:cosmoshub-3/slip44:118", "asset")
      assert.deepStrictEqual(assetType, {
        chainId: "cosmos:cosmoshub-3" as ChainId,
        assetNamespace: "slip44",
        assetReference: "118"
      })
      assert.isFalse("tokenId" in assetType)
      assert.deepStrictEqual(yield* parseAssetId(`eip155:1/erc721:${kitties}/771769`, "asset"), {
        chainId: "eip155:1" as ChainId,
        assetNamespace: "erc721",
        assetReference: kitties,
        tokenId: "771769"
      })
    })
  )

  it.effect("normalizes eip155 erc20 contract addresses to their EIP-55 checksum form", () =>
    Effect.gen(function* () {
      for (const spelling of [dai, dai.toLowerCase(), `0x${dai.slice(2).toUpperCase()}`]) {
        const parts = yield* parseAssetId(`eip155:1/erc20:${spelling}`, "asset")
        assert.strictEqual(parts.assetReference, dai)
        assert.strictEqual(Schema.decodeUnknownSync(AssetId)(`eip155:1/erc20:${spelling}`), `eip155:1/erc20:${dai}`)
      }
      // erc20 outside eip155 follows its own namespace's rules.
      assert.strictEqual(Schema.decodeUnknownSync(AssetId)("other:1/erc20:dai"), "other:1/erc20:dai")
    })
  )

  it.effect("fails with ParamsValidation naming the label and the reason", () =>
    Effect.gen(function* () {
      for (const [input, reason] of invalid) {
        const error = yield* Effect.flip(parseAssetId(input, "lineItems[2].asset"))
        assert.instanceOf(error, ParamsValidation)
        assert.strictEqual(error.message, `lineItems[2].asset is not a CAIP-19 asset id: ${reason}`)
      }
    })
  )

  it("rejects the same inputs when decoding with the schema", () => {
    for (const [input, reason] of invalid) {
      const result = Schema.decodeUnknownResult(AssetId)(input)
      assert.isTrue(Result.isFailure(result), input)
      if (Result.isFailure(result)) assert.include(result.failure.message, reason)
    }
  })

  it("brands only canonical spellings and formats trusted parts", () => {
    assert.isFalse(Schema.is(AssetId)(`eip155:1/erc20:${dai.toLowerCase()}`))
    assert.throws(() => AssetId.make(`eip155:1/erc20:${dai.toLowerCase()}`))
    const chainId = "eip155:1" as ChainId
    assert.strictEqual(
      formatAssetId({ chainId, assetNamespace: "erc20", assetReference: dai.toLowerCase() }),
      `eip155:1/erc20:${dai}`
    )
    assert.throws(() => formatAssetId({ chainId, assetNamespace: "erc20", assetReference: "dai" }))
  })

  it("tells whether an asset and an account share a chain", () => {
    const usdcOnPolygon = Schema.decodeUnknownSync(AssetId)(
      "eip155:137/erc20:0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"
    )
    const polygonAccount = Schema.decodeUnknownSync(AccountId)("eip155:137:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb")
    const mainnetAccount = Schema.decodeUnknownSync(AccountId)("eip155:1:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb")
    const longerChain = Schema.decodeUnknownSync(AccountId)("eip155:1370:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb")
    assert.strictEqual(assetChainId(usdcOnPolygon), "eip155:137")
    assert.isTrue(sameChain(usdcOnPolygon, polygonAccount))
    assert.isFalse(sameChain(usdcOnPolygon, mainnetAccount))
    assert.isFalse(sameChain(usdcOnPolygon, longerChain))
  })
})
