import { assert, describe, it } from "@effect/vitest"
import { maxOptionIdLength, PaymentOption } from "../../src/api/wire/PaymentOption.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("PaymentOption", () => {
  it("round-trips a pull (walletRpc) and a push (build) option byte for byte", () => {
    for (const example of [wireExamples.pullOption, wireExamples.pushOption]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(PaymentOption, text), text)
    }
  })

  it("writes missing collectData and expiresAt as null, in spec order", () => {
    const { collectData: _c, expiresAt: _e, ...input } = wireExamples.pushOption
    assert.strictEqual(reencodeJson(PaymentOption, JSON.stringify(input)), JSON.stringify(wireExamples.pushOption))
  })

  it("accepts an id of exactly 65536 characters and rejects a longer one", () => {
    const id = "a".repeat(maxOptionIdLength)
    const text = JSON.stringify({ ...wireExamples.pushOption, id })
    assert.strictEqual(reencodeJson(PaymentOption, text), text)
    assert.isTrue(rejectsStructurally(PaymentOption, { ...wireExamples.pushOption, id: `${id}a` }))
  })

  it("rejects non-integer etaS or expiresAt, an unknown action type and a missing account", () => {
    const base = wireExamples.pullOption
    assert.isTrue(rejectsStructurally(PaymentOption, { ...base, etaS: 1.5 }))
    assert.isTrue(rejectsStructurally(PaymentOption, { ...base, expiresAt: 1767225900.25 }))
    assert.isTrue(rejectsStructurally(PaymentOption, { ...base, expiresAt: "1767225900" }))
    assert.isTrue(rejectsStructurally(PaymentOption, { ...base, actions: [{ type: "redirect", data: {} }] }))
    assert.isTrue(rejectsStructurally(PaymentOption, { ...base, actions: null }))
    const { account: _account, ...noAccount } = base
    assert.isTrue(rejectsStructurally(PaymentOption, noAccount))
  })
})
