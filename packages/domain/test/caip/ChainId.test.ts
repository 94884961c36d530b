import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { ChainId, parseChainId, validateChainId } from "../../src/caip/ChainId.ts"

// The test cases of CAIP-2 itself.
const specExamples = [
  "eip155:1",
  "bip122:000000000019d6689c085ae165831e93",
  "bip122:12a765e31ffd4059bada1e25190f6e98",
  "bip122:fdbe99b90c90bae7505796461471d89a",
  "cosmos:cosmoshub-2",
  "cosmos:cosmoshub-3",
  "cosmos:Binance-Chain-Tigris",
  "cosmos:iov-mainnet",
  "starknet:SN_GOERLI",
  "lip9:9ee11e9df416b18b",
  "chainstd:8c3444cf8970a9e41a706fab93e7a6c4"
]

const invalid: ReadonlyArray<readonly [input: string, reason: string]> = [
  ["", 'expected the form "namespace:reference"'],
  ["eip155", 'expected the form "namespace:reference"'],
  ["eip155:1:2", 'expected the form "namespace:reference"'],
  [":1", 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  ["EIP155:1", 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  ["ab:1", 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  ["chainstd9:1", 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  ["eip155:", 'the chain reference must be 1 to 32 characters of a-z, A-Z, 0-9, "-" or "_"'],
  ["cosmos:cosmos hub", 'the chain reference must be 1 to 32 characters of a-z, A-Z, 0-9, "-" or "_"'],
  [
    "chainstd:8c3444cf8970a9e41a706fab93e7a6c4a",
    'the chain reference must be 1 to 32 characters of a-z, A-Z, 0-9, "-" or "_"'
  ],
  ["eip155:01", "the eip155 chain reference must be a positive decimal chain id without leading zeros"],
  ["eip155:0", "the eip155 chain reference must be a positive decimal chain id without leading zeros"],
  ["eip155:0x1", "the eip155 chain reference must be a positive decimal chain id without leading zeros"],
  ["eip155:mainnet", "the eip155 chain reference must be a positive decimal chain id without leading zeros"]
]

describe("ChainId", () => {
  it.effect("parses the CAIP-2 examples into namespace and reference", () =>
    Effect.gen(function* () {
      for (const example of specExamples) {
        const [namespace, reference] = example.split(":")
        assert.deepStrictEqual(yield* parseChainId(example, "chainId"), { namespace, reference })
        assert.strictEqual(Schema.decodeUnknownSync(ChainId)(example), example)
      }
      assert.deepStrictEqual(yield* parseChainId("eip155:28945486", "chainId"), {
        namespace: "eip155",
        reference: "28945486"
      })
    })
  )

  it.effect("fails with ParamsValidation naming the label and the reason", () =>
    Effect.gen(function* () {
      for (const [input, reason] of invalid) {
        const error = yield* Effect.flip(parseChainId(input, "payment.chainId"))
        assert.instanceOf(error, ParamsValidation)
        assert.strictEqual(error.message, `payment.chainId is not a CAIP-2 chain id: ${reason}`)
      }
    })
  )

  it("rejects the same inputs when decoding with the schema", () => {
    for (const [input, reason] of invalid) {
      const result = Schema.decodeUnknownResult(ChainId)(input)
      assert.isTrue(Result.isFailure(result), input)
      if (Result.isFailure(result)) assert.include(result.failure.message, reason)
    }
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(ChainId)(1)))
  })

  it("accepts other namespaces with their own reference rules left to them", () => {
    assert.isTrue(Result.isSuccess(validateChainId("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")))
    assert.isTrue(Result.isSuccess(validateChainId("abc:0")))
  })
})
