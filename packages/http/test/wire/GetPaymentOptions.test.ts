import { assert, describe, it } from "@effect/vitest"
import { GetPaymentOptionsRequest, GetPaymentOptionsResponse } from "../../src/api/wire/GetPaymentOptions.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("GetPaymentOptionsRequest", () => {
  it("round-trips byte for byte, with and without refresh ids", () => {
    const withRefresh = { ...wireExamples.optionsRequest, refresh: [wireExamples.pullOption.id] }
    for (const example of [wireExamples.optionsRequest, withRefresh]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(GetPaymentOptionsRequest, text), text)
    }
  })

  it("decodes a missing refresh as null", () => {
    const text = JSON.stringify({ accounts: wireExamples.optionsRequest.accounts })
    assert.strictEqual(reencodeJson(GetPaymentOptionsRequest, text), JSON.stringify(wireExamples.optionsRequest))
  })

  it("leaves the account count to rule validation", () => {
    const many = Array.from({ length: 21 }, (_, i) => `eip155:1:0x${i}`)
    for (const accounts of [[], many]) {
      assert.isFalse(rejectsStructurally(GetPaymentOptionsRequest, { accounts }))
    }
  })

  it("rejects missing or non-string accounts and a non-array refresh", () => {
    assert.isTrue(rejectsStructurally(GetPaymentOptionsRequest, {}))
    assert.isTrue(rejectsStructurally(GetPaymentOptionsRequest, { accounts: "eip155:1:0xabc" }))
    assert.isTrue(rejectsStructurally(GetPaymentOptionsRequest, { accounts: [1] }))
    assert.isTrue(rejectsStructurally(GetPaymentOptionsRequest, { accounts: [], refresh: "x" }))
  })
})

describe("GetPaymentOptionsResponse", () => {
  it("round-trips a full response byte for byte", () => {
    const text = JSON.stringify(wireExamples.optionsResponse)
    assert.strictEqual(reencodeJson(GetPaymentOptionsResponse, text), text)
  })

  it("writes a missing collectData and info as null", () => {
    assert.strictEqual(
      reencodeJson(GetPaymentOptionsResponse, JSON.stringify({ options: [] })),
      JSON.stringify({ collectData: null, info: null, options: [] })
    )
  })

  it("always has an options array: null or missing is refused (wallet SDKs require the array)", () => {
    assert.isTrue(rejectsStructurally(GetPaymentOptionsResponse, {}))
    assert.isTrue(rejectsStructurally(GetPaymentOptionsResponse, { collectData: null, info: null, options: null }))
  })

  it("rejects a non-array options and a malformed nested option", () => {
    assert.isTrue(rejectsStructurally(GetPaymentOptionsResponse, { options: {} }))
    const broken = { ...wireExamples.pushOption, etaS: "60" }
    assert.isTrue(
      rejectsStructurally(GetPaymentOptionsResponse, { ...wireExamples.optionsResponse, options: [broken] })
    )
  })
})
