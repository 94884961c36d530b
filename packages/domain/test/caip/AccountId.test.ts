import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import fc from "fast-check"
import { bytesToHex, getAddress } from "viem"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { AccountId, accountChainId, formatAccountId, parseAccountId, validateAccountId } from "../../src/caip/AccountId.ts"
import type { ChainId } from "../../src/caip/ChainId.ts"

const checksummed = "0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb"

// The test cases of CAIP-10 itself, all already canonical.
const specExamples = [
  `eip155:1:${checksummed}`,
  "bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6",
  "cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0",
  "polkadot:b0a8d493285c2df73290dfb7e61f870f:5hmuyxw9xdgbpptgypokw4thfyoe3ryenebr381z9iaegmfy",
  "starknet:SN_GOERLI:0x02dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57",
  "chainstd:8c3444cf8970a9e41a706fab93e7a6c4:6d9b0b4b9994e8a6afbd3dc3ed983cd51c755afb27cd1dc7825ef59c134a39f7",
  "hedera:mainnet:0.0.1234567890-zbhlt"
]

const invalid: ReadonlyArray<readonly [input: string, reason: string]> = [
  ["", 'expected the form "namespace:reference:address"'],
  ["eip155:1", 'expected the form "namespace:reference:address"'],
  [`eip155:1:${checksummed}:x`, 'expected the form "namespace:reference:address"'],
  [`EIP155:1:${checksummed}`, 'the chain namespace must be 3 to 8 characters of a-z, 0-9 or "-"'],
  [`eip155:01:${checksummed}`, "the eip155 chain reference must be a positive decimal chain id without leading zeros"],
  ["cosmos:cosmoshub-3:", 'the account address must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"'],
  ["cosmos:cosmoshub-3:cosmos1/x", 'the account address must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"'],
  [
    `chainstd:1:${"a".repeat(129)}`,
    'the account address must be 1 to 128 characters of a-z, A-Z, 0-9, "-", "." or "%"'
  ],
  [
    "eip155:1:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdg",
    "the eip155 account address must be 0x followed by 40 hex digits"
  ],
  [
    "eip155:1:0xab16a96d359ec26a11e2c2b3d8f8b8942d5bfc",
    "the eip155 account address must be 0x followed by 40 hex digits"
  ],
  [
    "eip155:1:ab16a96d359ec26a11e2c2b3d8f8b8942d5bfcdb",
    "the eip155 account address must be 0x followed by 40 hex digits"
  ],
  [
    "eip155:1:0xAb16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb",
    "the eip155 account address has a wrong EIP-55 checksum (mixed-case addresses must match it exactly)"
  ]
]

describe("AccountId", () => {
  it.effect("parses the CAIP-10 examples unchanged", () =>
    Effect.gen(function* () {
      for (const example of specExamples) {
        const separator = example.lastIndexOf(":")
        const parts = yield* parseAccountId(example, "account")
        assert.deepStrictEqual(parts, { chainId: example.slice(0, separator), address: example.slice(separator + 1) })
        assert.strictEqual(formatAccountId(parts), example)
        assert.strictEqual(Schema.decodeUnknownSync(AccountId)(example), example)
      }
    })
  )

  it.effect("normalizes eip155 addresses to their EIP-55 checksum form", () =>
    Effect.gen(function* () {
      for (const spelling of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
        assert.deepStrictEqual(yield* parseAccountId(`eip155:1:${spelling}`, "account"), {
          chainId: "eip155:1",
          address: checksummed
        })
        assert.strictEqual(Schema.decodeUnknownSync(AccountId)(`eip155:1:${spelling}`), `eip155:1:${checksummed}`)
      }
    })
  )

  it("normalizes random eip155 addresses like viem's getAddress", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.integer({ min: 1, max: 99999 }),
        (bytes, chain) => {
          const address = bytesToHex(bytes)
          const decoded = Schema.decodeUnknownSync(AccountId)(`eip155:${chain}:${address}`)
          assert.strictEqual(decoded, `eip155:${chain}:${getAddress(address)}`)
          assert.strictEqual(Schema.encodeSync(AccountId)(decoded), decoded)
        }
      )
    )
  })

  it.effect("fails with ParamsValidation naming the label and the reason", () =>
    Effect.gen(function* () {
      for (const [input, reason] of invalid) {
        const error = yield* Effect.flip(parseAccountId(input, "accounts[0]"))
        assert.instanceOf(error, ParamsValidation)
        assert.strictEqual(error.message, `accounts[0] is not a CAIP-10 account id: ${reason}`)
      }
    })
  )

  it("rejects the same inputs when decoding with the schema", () => {
    for (const [input, reason] of invalid) {
      const result = Schema.decodeUnknownResult(AccountId)(input)
      assert.isTrue(Result.isFailure(result), input)
      if (Result.isFailure(result)) assert.include(result.failure.message, reason)
    }
  })

  it("brands only canonical spellings", () => {
    assert.isTrue(Schema.is(AccountId)(`eip155:1:${checksummed}`))
    assert.isFalse(Schema.is(AccountId)(`eip155:1:${checksummed.toLowerCase()}`))
    assert.throws(() => AccountId.make(`eip155:1:${checksummed.toLowerCase()}`))
  })

  it("formats trusted parts, normalizing them, and throws on invalid ones", () => {
    const chainId = "eip155:1" as ChainId
    assert.strictEqual(formatAccountId({ chainId, address: checksummed.toLowerCase() }), `eip155:1:${checksummed}`)
    assert.throws(() => formatAccountId({ chainId, address: "0x1" }))
  })

  it("reads the chain id back from an account id", () => {
    assert.strictEqual(accountChainId(Schema.decodeUnknownSync(AccountId)(`eip155:137:${checksummed}`)), "eip155:137")
    assert.strictEqual(
      validateAccountId("hedera:mainnet:0.0.2").pipe(
        Result.map(({ chainId }) => chainId),
        Result.getOrThrow
      ),
      "hedera:mainnet"
    )
  })
})
