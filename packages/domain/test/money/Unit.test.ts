import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ParamsValidation } from "../../src/errors/DomainErrors.ts"
import { formatUnit, parseUnit, type Unit, UnitFromString } from "../../src/money/Unit.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const parse = (text: string): Unit => Effect.runSync(parseUnit(text))
const parseError = (text: string): ParamsValidation => Effect.runSync(Effect.flip(parseUnit(text)))

describe("Unit", () => {
  it("parses fiat units", () => {
    const unit = parse("iso4217/USD")
    assert.deepStrictEqual(unit, { _tag: "Fiat", currency: "USD" } as Unit)
    assert.strictEqual(formatUnit(unit), "iso4217/USD")
  })

  it("parses token units", () => {
    assert.deepStrictEqual(parse(`caip19/${usdc}`), { _tag: "Token", assetId: usdc })
    assert.deepStrictEqual(parse("caip19/eip155:137/slip44:966"), { _tag: "Token", assetId: "eip155:137/slip44:966" })
    assert.deepStrictEqual(parse("caip19/eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d/771769"), {
      _tag: "Token",
      assetId: "eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d/771769"
    })
  })

  it("round-trips through the wire schema", () => {
    for (const text of ["iso4217/JPY", "iso4217/KWD", `caip19/${usdc}`]) {
      const unit = Schema.decodeUnknownSync(UnitFromString)(text)
      assert.strictEqual(Schema.encodeSync(UnitFromString)(unit), text)
      assert.strictEqual(formatUnit(unit), text)
    }
  })

  it("rejects an unknown currency with a clear ParamsValidation", () => {
    const error = parseError("iso4217/ABC")
    assert.instanceOf(error, ParamsValidation)
    assert.strictEqual(error.message, '"ABC" is not an ISO 4217 currency code.')
  })

  it("rejects a lowercase currency", () => {
    const error = parseError("iso4217/usd")
    assert.instanceOf(error, ParamsValidation)
    assert.strictEqual(error.message, 'currency code must be 3 uppercase letters (ISO 4217), e.g. "USD".')
  })

  it("rejects unknown prefixes", () => {
    const expected = 'unit must be "iso4217/<currency code>" (e.g. "iso4217/USD") or "caip19/<CAIP-19 asset id>".'
    for (const text of [
      `btc/${usdc}`,
      "USD",
      "",
      "ISO4217/USD",
      "iso4217:USD",
      "caip-19/x",
      ` iso4217/USD`,
      `CAIP19/${usdc}`
    ]) {
      const error = parseError(text)
      assert.instanceOf(error, ParamsValidation, JSON.stringify(text))
      assert.strictEqual(error.message, expected, JSON.stringify(text))
    }
  })

  it("rejects malformed currencies and asset ids", () => {
    const assetMessage =
      'token unit must be "caip19/" followed by a CAIP-19 asset id, e.g. "caip19/eip155:1/erc20:0x…".'
    for (const text of ["iso4217/", "iso4217/USDC", "iso4217/USD ", "iso4217/US"]) {
      assert.instanceOf(parseError(text), ParamsValidation, text)
    }
    for (const text of [
      "caip19/",
      "caip19/garbage",
      `caip19/${usdc} `,
      "caip19/eip155:1",
      "caip19/EIP155:1/erc20:0x1",
      `caip19/${usdc}/`
    ]) {
      const error = parseError(text)
      assert.instanceOf(error, ParamsValidation, text)
      assert.strictEqual(error.message, assetMessage, text)
    }
  })
})
