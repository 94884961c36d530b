import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { bytesToHex, getAddress } from "viem"
import { isHexAddress, isValidEip55, normalizeEip55Address, toChecksumAddress } from "../../src/caip/Eip55.ts"

// The test vectors of EIP-55 itself: each is already in checksum form.
const specVectors = [
  "0x52908400098527886E0F7030069857D2E4169EE7",
  "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  "0xde709f2102306220921060314715629080e2fb77",
  "0x27b1fdb04752bbc536007a920d24acb045561c26",
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"
]

const randomAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => bytesToHex(bytes))

/** Swaps the case of the hex letter at `index`. */
const flipCase = (address: string, index: number): string => {
  const char = address.charAt(index)
  const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()
  return address.slice(0, index) + flipped + address.slice(index + 1)
}

describe("EIP-55", () => {
  it("reproduces the specification's vectors", () => {
    for (const vector of specVectors) {
      assert.strictEqual(toChecksumAddress(vector.toLowerCase()), vector)
      assert.strictEqual(toChecksumAddress(vector.toUpperCase().replace("0X", "0x")), vector)
      assert.isTrue(isValidEip55(vector))
    }
  })

  it("agrees with viem's getAddress on random addresses", () => {
    fc.assert(
      fc.property(randomAddress, (address) => {
        assert.strictEqual(toChecksumAddress(address), getAddress(address))
      }),
      { numRuns: 300 }
    )
  })

  it("normalizes all-lower and all-upper case to the checksum form", () => {
    fc.assert(
      fc.property(randomAddress, (address) => {
        const expected = getAddress(address)
        assert.deepStrictEqual(normalizeEip55Address(address), Result.succeed(expected))
        assert.deepStrictEqual(normalizeEip55Address(`0x${address.slice(2).toUpperCase()}`), Result.succeed(expected))
        assert.deepStrictEqual(normalizeEip55Address(expected), Result.succeed(expected))
      })
    )
  })

  it("rejects a mixed-case address whose checksum is wrong", () => {
    fc.assert(
      fc.property(randomAddress, fc.nat(), (address, seed) => {
        const checksummed = getAddress(address)
        const letters = [...checksummed.slice(2)].flatMap((char, i) => (/[a-fA-F]/.test(char) ? [i + 2] : []))
        fc.pre(letters.length > 0)
        const tampered = flipCase(checksummed, letters[seed % letters.length]!)
        const digits = tampered.slice(2)
        const uniform = digits === digits.toLowerCase() || digits === digits.toUpperCase()
        assert.isFalse(isValidEip55(tampered))
        // Flipping the only letter of one case leaves an unchecksummed address, which is accepted.
        assert.deepStrictEqual(Result.isSuccess(normalizeEip55Address(tampered)), uniform)
      })
    )
    assert.isTrue(Result.isFailure(normalizeEip55Address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")))
  })

  it("rejects anything but 0x and 40 hex digits", () => {
    for (const bad of [
      "",
      "0x",
      "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
      "0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae",
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0",
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg"
    ]) {
      assert.isFalse(isHexAddress(bad), bad)
      assert.isFalse(isValidEip55(bad), bad)
      assert.deepStrictEqual(normalizeEip55Address(bad), Result.fail("must be 0x followed by 40 hex digits"), bad)
    }
  })

  it("answers remembered addresses the same as new ones, past the size of its memory", () => {
    const addresses = Array.from({ length: 5000 }, (_, i) => `0x${i.toString(16).padStart(8, "0")}${"ab".repeat(16)}`)
    for (const address of addresses) assert.strictEqual(toChecksumAddress(address), getAddress(address))
    for (const address of addresses.slice(0, 100).concat(addresses.slice(-100))) {
      assert.strictEqual(toChecksumAddress(address.toUpperCase().replace("0X", "0x")), getAddress(address))
    }
  })
})
