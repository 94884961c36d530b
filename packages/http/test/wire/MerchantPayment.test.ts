import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { CreatePaymentRequest, CreatePaymentResponse, MerchantStatusResponse } from "../../src/api/wire/MerchantPayment.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("CreatePaymentRequest", () => {
  it("round-trips with full, partial and no checkout byte for byte", () => {
    const { checkout: _checkout, ...noCheckout } = wireExamples.createPaymentRequest
    const successOnly = { ...noCheckout, checkout: { successUrl: "https://shop.example.com/ok" } }
    for (const example of [wireExamples.createPaymentRequest, successOnly, noCheckout]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(CreatePaymentRequest, text), text)
    }
  })

  it("keeps optional keys absent rather than null", () => {
    const decoded = Schema.decodeUnknownSync(CreatePaymentRequest)({
      ...wireExamples.createPaymentRequest,
      checkout: {}
    })
    assert.deepStrictEqual(decoded.checkout, {})
    assert.isFalse("successUrl" in (decoded.checkout ?? {}))
  })

  it("rejects a missing referenceId, a numeric value and a null checkout url", () => {
    const base = wireExamples.createPaymentRequest
    const { referenceId: _referenceId, ...noReference } = base
    assert.isTrue(rejectsStructurally(CreatePaymentRequest, noReference))
    assert.isTrue(rejectsStructurally(CreatePaymentRequest, { ...base, amount: { unit: "iso4217/USD", value: 1250 } }))
    assert.isTrue(rejectsStructurally(CreatePaymentRequest, { ...base, checkout: { successUrl: null } }))
  })
})

describe("CreatePaymentResponse and MerchantStatusResponse", () => {
  it("round-trip byte for byte", () => {
    const created = JSON.stringify(wireExamples.createPaymentResponse)
    assert.strictEqual(reencodeJson(CreatePaymentResponse, created), created)
    const status = JSON.stringify(wireExamples.merchantStatus)
    assert.strictEqual(reencodeJson(MerchantStatusResponse, status), status)
  })

  it("reject gateway-vocabulary statuses and a non-integer expiresAt", () => {
    assert.isTrue(rejectsStructurally(MerchantStatusResponse, { status: "requires_action", isFinal: false }))
    assert.isTrue(rejectsStructurally(MerchantStatusResponse, { status: "cancelled", isFinal: true }))
    assert.isTrue(rejectsStructurally(CreatePaymentResponse, { ...wireExamples.createPaymentResponse, expiresAt: 1.5 }))
  })
})
