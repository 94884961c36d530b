import { assert, describe, it } from "@effect/vitest"
import { data, publishDate } from "currency-codes"
import pkg from "currency-codes/package.json" with { type: "json" }
import { Effect, Option } from "effect"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import {
  type CurrencyCode,
  currencyCodes,
  currencyExponent,
  currencyName,
  findCurrency,
  isCurrencyCode,
  isPayableCurrency,
  parseCurrencyCode
} from "../../src/money/Currency.ts"
import { iso4217, iso4217Source } from "../../src/money/iso4217.generated.ts"

const code = (text: string): CurrencyCode => Effect.runSync(parseCurrencyCode(text))

describe("iso4217.generated", () => {
  // A package update that changes the data fails here until `node scripts/gen-iso4217.mjs` is rerun.
  it("is in sync with the currency-codes package", () => {
    const withDigits = data.filter((entry) => typeof entry.digits === "number")
    assert.strictEqual(Object.keys(iso4217).length, withDigits.length)
    for (const entry of withDigits) {
      const row = findCurrency(entry.code)
      assert.isTrue(Option.isSome(row), `${entry.code} missing from the table`)
      if (Option.isNone(row)) continue
      assert.strictEqual(row.value.exponent, entry.digits, `${entry.code} exponent`)
      assert.strictEqual(row.value.numeric, entry.number, `${entry.code} numeric code`)
      assert.strictEqual(row.value.name, entry.currency.trim(), `${entry.code} name`)
    }
  })

  it("records the package version and ISO publish date it was generated from", () => {
    assert.strictEqual(iso4217Source.package, "currency-codes")
    assert.strictEqual(iso4217Source.version, pkg.version)
    assert.strictEqual(iso4217Source.publishDate, publishDate)
  })

  it("is frozen", () => {
    assert.isTrue(Object.isFrozen(iso4217))
    assert.isTrue(Object.isFrozen(iso4217.USD))
  })
})

describe("Currency", () => {
  it("knows the exponents of common and unusual currencies", () => {
    const expected: ReadonlyArray<readonly [string, number]> = [
      ["USD", 2],
      ["EUR", 2],
      ["JPY", 0],
      ["KRW", 0],
      ["KWD", 3],
      ["BHD", 3],
      ["CLF", 4],
      ["UYW", 4]
    ]
    for (const [text, exponent] of expected) assert.strictEqual(currencyExponent(code(text)), exponent, text)
  })

  it("names currencies", () => {
    assert.strictEqual(currencyName(code("USD")), "US Dollar")
    assert.strictEqual(currencyName(code("KMF")), "Comorian Franc")
  })

  it("lists every code once, sorted", () => {
    assert.strictEqual(currencyCodes.length, Object.keys(iso4217).length)
    assert.deepStrictEqual([...currencyCodes].sort(), [...currencyCodes])
    assert.isTrue(currencyCodes.every(isCurrencyCode))
  })

  it("looks up any string without throwing", () => {
    assert.deepStrictEqual(
      findCurrency("KWD"),
      Option.some({ code: code("KWD"), exponent: 3, name: "Kuwaiti Dinar", numeric: "414", payable: true })
    )
    for (const text of ["usd", "ABC", "", "US", "USDT", "__proto__", "constructor", "toString"]) {
      assert.isTrue(Option.isNone(findCurrency(text)), text)
      assert.isFalse(isCurrencyCode(text), text)
    }
  })

  it.effect("rejects malformed and unknown codes with ParamsValidation", () =>
    Effect.gen(function* () {
      const lower = yield* Effect.flip(parseCurrencyCode("usd"))
      assert.instanceOf(lower, ParamsValidation)
      assert.strictEqual(lower.message, 'currency code must be 3 uppercase letters (ISO 4217), e.g. "USD".')
      const unknown = yield* Effect.flip(parseCurrencyCode("ABC"))
      assert.instanceOf(unknown, ParamsValidation)
      assert.strictEqual(unknown.message, '"ABC" is not an ISO 4217 currency code.')
      for (const text of ["", "US", "USDC", " USD", "US1"]) {
        assert.instanceOf(yield* Effect.flip(parseCurrencyCode(text)), ParamsValidation, text)
      }
    })
  )
})

describe("payable currencies", () => {
  it("excludes ISO's non-currencies (minor units N.A.) and keeps real ones", () => {
    for (const code of ["XAU", "XAG", "XPT", "XPD", "XDR", "XTS", "XXX", "XBA", "XSU", "XUA"]) {
      assert.isFalse(isPayableCurrency(code as CurrencyCode), code)
    }
    for (const code of ["USD", "EUR", "JPY", "KWD", "XOF", "XAF", "XCD", "XPF", "CLF"]) {
      assert.isTrue(isPayableCurrency(code as CurrencyCode), code)
    }
  })
})
