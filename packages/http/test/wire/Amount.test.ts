import { assert, describe, it } from "@effect/vitest"
import { Amount, AmountDisplay } from "../../src/api/wire/Amount.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("Amount", () => {
  it("round-trips a fiat and a token amount byte for byte", () => {
    for (const example of [wireExamples.amountUsd, wireExamples.amountUsdc]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(Amount, text), text)
    }
  })

  it("writes missing nullable display fields as null", () => {
    const text = JSON.stringify({ assetName: "US Dollar", assetSymbol: "USD", decimals: 2 })
    assert.strictEqual(reencodeJson(AmountDisplay, text), JSON.stringify(wireExamples.amountUsd.display))
  })

  it("rejects non-int32 or negative decimals", () => {
    for (const decimals of [1.5, -1, 2 ** 31, "6", null]) {
      assert.isTrue(
        rejectsStructurally(AmountDisplay, { ...wireExamples.amountUsdc.display, decimals }),
        String(decimals)
      )
    }
  })

  it("rejects a missing display or a numeric value", () => {
    const { display: _display, ...noDisplay } = wireExamples.amountUsd
    assert.isTrue(rejectsStructurally(Amount, noDisplay))
    assert.isTrue(rejectsStructurally(Amount, { ...wireExamples.amountUsd, value: 1250 }))
  })
})
