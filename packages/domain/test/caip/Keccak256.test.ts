import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { bytesToHex, keccak256 as viemKeccak256 } from "viem"
import { keccak256 } from "../../src/caip/Keccak256.ts"

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text)

describe("keccak256", () => {
  it("matches the known digests", () => {
    assert.strictEqual(
      hex(keccak256(new Uint8Array())),
      "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    )
    assert.strictEqual(hex(keccak256(ascii("abc"))), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45")
    assert.strictEqual(
      hex(keccak256(ascii("The quick brown fox jumps over the lazy dog"))),
      "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"
    )
  })

  it("uses Keccak's 0x01 padding, not SHA3-256's 0x06", () => {
    // SHA3-256("") is a7ffc6f8…; Ethereum's Keccak-256("") differs.
    assert.notStrictEqual(
      hex(keccak256(new Uint8Array())),
      "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"
    )
  })

  it("returns 32 bytes and leaves its input untouched", () => {
    const input = Uint8Array.from([1, 2, 3])
    assert.strictEqual(keccak256(input).length, 32)
    assert.deepStrictEqual([...input], [1, 2, 3])
  })

  it("agrees with viem for every length from 0 to 300 bytes (padding and block boundaries)", () => {
    for (let length = 0; length <= 300; length++) {
      const input = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff)
      assert.strictEqual(bytesToHex(keccak256(input)), viemKeccak256(input), `length ${length}`)
    }
  })

  it("agrees with viem on random inputs, including lengths around the 136-byte rate", () => {
    const exactLength = fc
      .constantFrom(135, 136, 137, 271, 272, 273)
      .chain((length) => fc.uint8Array({ minLength: length, maxLength: length }))
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 600 }), exactLength), (input) => {
        assert.strictEqual(bytesToHex(keccak256(input)), viemKeccak256(input))
      }),
      { numRuns: 300 }
    )
  })
})
