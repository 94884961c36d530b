import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { convertFiatToToken } from "../../src/money/Conversion.ts"
import { maxMinorValue } from "../../src/money/MinorValue.ts"
import { Rate, rateFromDecimalString } from "../../src/money/Rate.ts"

const rate = (text: string): Rate => Effect.runSync(rateFromDecimalString(text))
const rateError = (text: string): ParamsValidation => Effect.runSync(Effect.flip(rateFromDecimalString(text)))
const pow10 = (n: number): bigint => 10n ** BigInt(n)

describe("Rate", () => {
  it("reads decimal strings exactly", () => {
    const r = rate("0.000312")
    assert.strictEqual(r.numerator, 312n)
    assert.strictEqual(r.denominator, 1_000_000n)
    assert.strictEqual(rate("3200").numerator, 3200n)
    assert.strictEqual(rate("3200").denominator, 1n)
    assert.strictEqual(rate("1.000000000000000000000000001").numerator, 10n ** 27n + 1n)
  })

  it("has a 1:1 peg", () => {
    assert.strictEqual(Rate.one.numerator, 1n)
    assert.strictEqual(Rate.one.denominator, 1n)
  })

  it("rejects zero, signs and non-decimals with ParamsValidation", () => {
    assert.strictEqual(rateError("0").message, "rate must be greater than zero.")
    assert.strictEqual(rateError("0.000").message, "rate must be greater than zero.")
    for (const text of ["", "-1", "+1", "1e-3", " 1", "1/3", ".5", "00.1", "NaN"]) {
      assert.instanceOf(rateError(text), ParamsValidation, JSON.stringify(text))
    }
  })

  it("refuses to construct a non-positive fraction", () => {
    assert.throws(() => new Rate({ numerator: 0n, denominator: 1n }))
    assert.throws(() => new Rate({ numerator: 1n, denominator: -1n }))
  })
})

describe("convertFiatToToken", () => {
  it("converts at a peg", () => {
    // 10.50 USD → USDC (6 decimals)
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 1050n, fiatExponent: 2, rate: Rate.one, tokenDecimals: 6 }),
      10_500_000n
    )
    // 1000 JPY → an 18-decimal JPY stablecoin
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 1000n, fiatExponent: 0, rate: Rate.one, tokenDecimals: 18 }),
      1000n * pow10(18)
    )
    // 1.005 KWD → a 2-decimal token rounds 100.5 cents up
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 1005n, fiatExponent: 3, rate: Rate.one, tokenDecimals: 2 }),
      101n
    )
  })

  it("converts at a market rate, exactly when it divides", () => {
    // 100.00 USD at 3200 USD/ETH = 0.03125 ETH
    const ethPerUsd = new Rate({ numerator: 1n, denominator: 3200n })
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 10_000n, fiatExponent: 2, rate: ethPerUsd, tokenDecimals: 18 }),
      31_250_000_000_000_000n
    )
    // 12.34 USD at 0.000312 BTC/USD = 0.00385008 BTC
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 1234n, fiatExponent: 2, rate: rate("0.000312"), tokenDecimals: 8 }),
      385_008n
    )
  })

  it("rounds up, never down", () => {
    const third = new Rate({ numerator: 1n, denominator: 3n })
    assert.strictEqual(
      convertFiatToToken({ fiatMinor: 100n, fiatExponent: 2, rate: third, tokenDecimals: 18 }),
      333_333_333_333_333_334n
    )
    assert.strictEqual(convertFiatToToken({ fiatMinor: 1n, fiatExponent: 2, rate: third, tokenDecimals: 0 }), 1n)
    assert.strictEqual(convertFiatToToken({ fiatMinor: 0n, fiatExponent: 2, rate: third, tokenDecimals: 18 }), 0n)
  })

  it("throws on negative amounts and invalid exponents (programming errors)", () => {
    assert.throws(
      () => convertFiatToToken({ fiatMinor: -1n, fiatExponent: 2, rate: Rate.one, tokenDecimals: 6 }),
      RangeError
    )
    assert.throws(
      () => convertFiatToToken({ fiatMinor: 1n, fiatExponent: -2, rate: Rate.one, tokenDecimals: 6 }),
      RangeError
    )
    assert.throws(
      () => convertFiatToToken({ fiatMinor: 1n, fiatExponent: 2, rate: Rate.one, tokenDecimals: 0.5 }),
      RangeError
    )
  })

  it("never rounds against the merchant, and returns the smallest such amount", () => {
    const input = fc.record({
      fiatMinor: fc.bigInt({ min: 0n, max: maxMinorValue }),
      fiatExponent: fc.integer({ min: 0, max: 4 }),
      numerator: fc.bigInt({ min: 1n, max: pow10(24) }),
      denominator: fc.bigInt({ min: 1n, max: pow10(24) }),
      tokenDecimals: fc.integer({ min: 0, max: 30 })
    })
    fc.assert(
      fc.property(input, ({ fiatMinor, fiatExponent, numerator, denominator, tokenDecimals }) => {
        const result = convertFiatToToken({
          fiatMinor,
          fiatExponent,
          rate: new Rate({ numerator, denominator }),
          tokenDecimals
        })
        // Compare token and fiat values exactly by cross-multiplying: worth(t) = t / 10^dec, price = fiat / 10^exp × rate.
        const owed = fiatMinor * numerator * pow10(tokenDecimals)
        const worth = (tokens: bigint): bigint => tokens * denominator * pow10(fiatExponent)
        assert.isTrue(worth(result) >= owed, "the token amount is worth at least the fiat amount")
        assert.isTrue(result === 0n ? owed === 0n : worth(result - 1n) < owed, "one base unit less would be worth less")
      }),
      { numRuns: 1000 }
    )
  })
})
