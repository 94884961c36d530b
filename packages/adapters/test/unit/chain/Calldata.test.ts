import { assert, describe, it } from "@effect/vitest"
import { Option, Result } from "effect"
import { concatHex, encodeFunctionData, parseAbi, sliceHex } from "viem"
import { decodeTransferWithReference, encodeTransferWithReference } from "../../../src/chain/PushTransfer.ts"
import { parseEcdsaSignature } from "../../../src/chain/Signature.ts"

const to = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"
const reference = "0x0123456789abcdef0123456789abcdef"
const erc20 = parseAbi([
  "function transfer(address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)"
])

describe("PushTransfer calldata", () => {
  it("encodes transfer(to, value) with the reference appended, and decodes it back", () => {
    const data = encodeTransferWithReference(to, 1_234_567n, reference)
    assert.strictEqual(data.length, 2 + 2 * (4 + 32 + 32 + 16))
    assert.isTrue(data.startsWith("0xa9059cbb"))
    assert.isTrue(data.endsWith(reference.slice(2)))
    assert.deepStrictEqual(decodeTransferWithReference(data), Option.some({ to, value: 1_234_567n, reference }))
    // Upper-case hex decodes to the same lower-case reference.
    const upper = `0x${data.slice(2).toUpperCase()}` as const
    assert.deepStrictEqual(Option.map(decodeTransferWithReference(upper), (t) => t.reference), Option.some(reference))
  })

  it("refuses a plain transfer, a longer tail, another function and non-canonical words", () => {
    const plain = encodeFunctionData({ abi: erc20, functionName: "transfer", args: [to, 5n] })
    assert.isTrue(Option.isNone(decodeTransferWithReference(plain)))
    assert.isTrue(Option.isNone(decodeTransferWithReference(concatHex([plain, reference, "0x00"]))))
    assert.isTrue(Option.isNone(decodeTransferWithReference(concatHex([plain, "0x0123456789abcdef"]))))
    const approve = encodeFunctionData({ abi: erc20, functionName: "approve", args: [to, 5n] })
    assert.isTrue(Option.isNone(decodeTransferWithReference(concatHex([approve, reference]))))
    // Dirty high bytes in the address word: tokens compiled with ABI checks would revert.
    const good = encodeTransferWithReference(to, 5n, reference)
    const dirty = concatHex([sliceHex(good, 0, 4), "0xff", sliceHex(good, 5)])
    assert.isTrue(Option.isNone(decodeTransferWithReference(dirty)))
    assert.isTrue(Option.isNone(decodeTransferWithReference("0xnothex")))
  })
})

describe("Signature", () => {
  const r = `0x${"11".repeat(32)}` as const
  const lowS = `0x${"22".repeat(32)}` as const
  const highS = "0x8fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"

  it("splits a 65-byte signature and reads v 0/1 as 27/28", () => {
    for (const [rawV, v] of [["1b", 27], ["1c", 28], ["00", 27], ["01", 28]] as const) {
      const parsed = parseEcdsaSignature(`${r}${lowS.slice(2)}${rawV}`)
      assert.isTrue(Result.isSuccess(parsed))
      if (Result.isSuccess(parsed)) {
        assert.strictEqual(parsed.success.v, v)
        assert.strictEqual(parsed.success.r, r)
        assert.strictEqual(parsed.success.s, lowS)
        assert.strictEqual(parsed.success.serialized, `${r}${lowS.slice(2)}${v.toString(16)}`)
      }
    }
  })

  it("refuses high s, other v values and other lengths", () => {
    assert.deepStrictEqual(parseEcdsaSignature(`${r}${highS.slice(2)}1b`), Result.fail("is not in canonical low-s form"))
    assert.deepStrictEqual(
      parseEcdsaSignature(`${r}${lowS.slice(2)}25`),
      Result.fail("has a recovery id (v) other than 27 or 28")
    )
    assert.deepStrictEqual(parseEcdsaSignature(`${r}${lowS.slice(2)}`), Result.fail("is not a 65-byte signature"))
  })
})
