import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import fc from "fast-check"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { formatMinorValue, maxMinorValue, MinorValue, parseMinorValue, toMinorValue } from "../../src/money/MinorValue.ts"

const parse = (text: string): MinorValue => Effect.runSync(parseMinorValue(text))
const parseError = (text: string): ParamsValidation => Effect.runSync(Effect.flip(parseMinorValue(text)))

describe("MinorValue", () => {
  it("decodes the wire string to an exact bigint", () => {
    assert.strictEqual(parse("1"), 1n)
    assert.strictEqual(parse("12345"), 12345n)
    assert.strictEqual(parse("999999999999999999"), 10n ** 18n - 1n)
    assert.strictEqual(maxMinorValue, 999999999999999999n)
  })

  it("round-trips every value from 1 to 10^18 - 1 exactly", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: maxMinorValue }), (value) => {
        const text = value.toString()
        const decoded = parse(text)
        assert.strictEqual(decoded, value)
        assert.strictEqual(formatMinorValue(decoded), text)
        assert.strictEqual(Schema.encodeSync(MinorValue)(decoded), text)
      }),
      { numRuns: 1000, examples: [[1n], [maxMinorValue], [2n ** 53n + 1n]] }
    )
  })

  it("rejects malformed values with ParamsValidation", () => {
    const bad = [
      "0",
      "01",
      "00",
      "-1",
      "+1",
      "1.5",
      "1.0",
      " 1",
      "1 ",
      "",
      "1e3",
      "0x1",
      "１",
      "1000000000000000000",
      "9".repeat(19)
    ]
    for (const text of bad) {
      const error = parseError(text)
      assert.instanceOf(error, ParamsValidation, JSON.stringify(text))
      assert.strictEqual(
        error.message,
        "value must be a positive integer of at most 18 digits (1 to 999999999999999999), written as digits only: no sign, decimal point, spaces or leading zeros."
      )
    }
  })

  it("brands computed amounts only within 1..10^18 - 1", () => {
    assert.deepStrictEqual(toMinorValue(1n), Option.some(1n as MinorValue))
    assert.deepStrictEqual(toMinorValue(maxMinorValue), Option.some(maxMinorValue as MinorValue))
    assert.isTrue(Option.isNone(toMinorValue(0n)))
    assert.isTrue(Option.isNone(toMinorValue(-1n)))
    assert.isTrue(Option.isNone(toMinorValue(maxMinorValue + 1n)))
  })

  it("refuses to encode an out-of-range value", () => {
    assert.throws(() => Schema.encodeSync(MinorValue)((maxMinorValue + 1n) as MinorValue))
    assert.throws(() => Schema.encodeSync(MinorValue)(0n as MinorValue))
  })
})
