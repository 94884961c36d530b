import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { formatMinor, maxDecimalLength, parseDecimal } from "../../src/money/Decimal.ts"

const parse = (text: string, exponent: number): bigint => Effect.runSync(parseDecimal(text, exponent))
const parseError = (text: string, exponent: number): ParamsValidation =>
  Effect.runSync(Effect.flip(parseDecimal(text, exponent)))

const max18 = 10n ** 18n - 1n
const exponentArb = fc.integer({ min: 0, max: 24 })
const numRuns = 1000

describe("formatMinor", () => {
  it("writes exactly `exponent` fraction digits", () => {
    assert.strictEqual(formatMinor(12345n, 2), "123.45")
    assert.strictEqual(formatMinor(5n, 2), "0.05")
    assert.strictEqual(formatMinor(0n, 2), "0.00")
    assert.strictEqual(formatMinor(100n, 0), "100")
    assert.strictEqual(formatMinor(1234n, 3), "1.234")
    assert.strictEqual(formatMinor(10000n, 4), "1.0000")
  })

  it("is exact at and beyond 10^18", () => {
    assert.strictEqual(formatMinor(max18, 0), "999999999999999999")
    assert.strictEqual(formatMinor(max18, 2), "9999999999999999.99")
    assert.strictEqual(formatMinor(max18, 18), "0.999999999999999999")
    assert.strictEqual(formatMinor(10n ** 18n, 18), "1.000000000000000000")
    assert.strictEqual(formatMinor(10n ** 18n + 1n, 18), "1.000000000000000001")
    assert.strictEqual(
      formatMinor(2n ** 256n - 1n, 18),
      "115792089237316195423570985008687907853269984665640564039457.584007913129639935"
    )
  })

  it("throws on negative amounts and invalid exponents (programming errors)", () => {
    assert.throws(() => formatMinor(-1n, 2), RangeError)
    assert.throws(() => formatMinor(1n, -1), RangeError)
    assert.throws(() => formatMinor(1n, 1.5), RangeError)
  })
})

describe("parseDecimal", () => {
  it("reads minor units", () => {
    assert.strictEqual(parse("123.45", 2), 12345n)
    assert.strictEqual(parse("0.05", 2), 5n)
    assert.strictEqual(parse("100", 0), 100n)
    assert.strictEqual(parse("1.5", 2), 150n)
    assert.strictEqual(parse("7", 3), 7000n)
    assert.strictEqual(parse("0", 2), 0n)
  })

  it("is exact at and beyond 10^18", () => {
    assert.strictEqual(parse("999999999999999999", 0), max18)
    assert.strictEqual(parse("9999999999999999.99", 2), max18)
    assert.strictEqual(parse("0.999999999999999999", 18), max18)
    assert.strictEqual(parse("1000000000000000000", 0), 10n ** 18n)
    assert.strictEqual(parse("1.000000000000000001", 18), 10n ** 18n + 1n)
  })

  it("rejects anything but a plain unsigned decimal with ParamsValidation", () => {
    const bad = [
      "",
      "-1",
      "+1",
      "-0.5",
      "1e3",
      "1E3",
      " 1",
      "1 ",
      "1 000",
      "1,000",
      "1_000",
      ".5",
      "1.",
      "01",
      "00.5",
      "0x10",
      "NaN",
      "Infinity",
      "١٢",
      "1.2.3",
      "1..2",
      "9".repeat(maxDecimalLength + 1)
    ]
    for (const text of bad) assert.instanceOf(parseError(text, 2), ParamsValidation, JSON.stringify(text))
  })

  it("rejects more fraction digits than the exponent instead of rounding", () => {
    assert.strictEqual(parseError("1.234", 2).message, "amount must have at most 2 decimal places.")
    assert.strictEqual(parseError("1.5", 0).message, "amount must be a whole number: this currency has no minor units.")
    assert.strictEqual(
      parseError("1.00", 0).message,
      "amount must be a whole number: this currency has no minor units."
    )
  })

  it("throws on an invalid exponent (programming error)", () => {
    assert.throws(() => parseDecimal("1", -1), RangeError)
  })
})

describe("formatMinor and parseDecimal", () => {
  it("parse ∘ format is the identity (no precision loss up to 10^18 and beyond)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), exponentArb, (value, exponent) => {
        assert.strictEqual(parse(formatMinor(value, exponent), exponent), value)
      }),
      {
        numRuns,
        examples: [
          [max18, 0],
          [max18, 2],
          [max18, 18],
          [10n ** 18n, 0],
          [10n ** 18n, 18],
          [0n, 0]
        ]
      }
    )
  })

  it("format ∘ parse is the identity on canonical strings", () => {
    const canonical = exponentArb.chain((exponent) =>
      fc.tuple(
        fc.constant(exponent),
        fc.bigInt({ min: 0n, max: max18 }),
        fc.array(fc.constantFrom(..."0123456789"), { minLength: exponent, maxLength: exponent })
      )
    )
    fc.assert(
      fc.property(canonical, ([exponent, integer, fraction]) => {
        const text = exponent === 0 ? `${integer}` : `${integer}.${fraction.join("")}`
        assert.strictEqual(formatMinor(parse(text, exponent), exponent), text)
      }),
      { numRuns }
    )
  })

  it("reads fewer fraction digits as if zero-padded", () => {
    const shorter = exponentArb.chain((exponent) =>
      fc.tuple(fc.bigInt({ min: 0n, max: max18 }), fc.constant(exponent), fc.integer({ min: 0, max: exponent }))
    )
    fc.assert(
      fc.property(shorter, ([value, exponent, written]) => {
        // `written` fraction digits, the missing `exponent - written` ones being zeros.
        assert.strictEqual(parse(formatMinor(value, written), exponent), value * 10n ** BigInt(exponent - written))
      }),
      { numRuns }
    )
  })
})
