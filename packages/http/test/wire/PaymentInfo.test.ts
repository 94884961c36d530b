import { assert, describe, it } from "@effect/vitest"
import { GetPaymentResponse, MerchantInfo } from "../../src/api/wire/PaymentInfo.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("GetPaymentResponse", () => {
  it("round-trips with and without a buyer byte for byte", () => {
    for (const example of [wireExamples.paymentInfo, wireExamples.paymentInfoWithBuyer]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(GetPaymentResponse, text), text)
    }
  })

  it("writes a missing buyer, merchant icon and buyer icon as null", () => {
    const { buyer: _buyer, ...noBuyer } = wireExamples.paymentInfo
    const input = { ...noBuyer, merchant: { name: "Coffee Corner" } }
    const expected = { ...wireExamples.paymentInfo, merchant: { name: "Coffee Corner", iconUrl: null } }
    assert.strictEqual(reencodeJson(GetPaymentResponse, JSON.stringify(input)), JSON.stringify(expected))

    const buyer = { accountCaip10: "eip155:1:0xabc", accountProviderName: "Example Wallet" }
    const decoded = reencodeJson(GetPaymentResponse, JSON.stringify({ ...wireExamples.paymentInfo, buyer }))
    assert.strictEqual(
      decoded,
      JSON.stringify({ ...wireExamples.paymentInfo, buyer: { ...buyer, accountProviderIcon: null } })
    )
  })

  it("rejects an unknown status, a non-integer expiresAt and a missing merchant", () => {
    const base = wireExamples.paymentInfo
    assert.isTrue(rejectsStructurally(GetPaymentResponse, { ...base, status: "pending" }))
    for (const expiresAt of [1767226200.5, "1767226200", -1, null]) {
      assert.isTrue(rejectsStructurally(GetPaymentResponse, { ...base, expiresAt }), String(expiresAt))
    }
    const { merchant: _merchant, ...noMerchant } = base
    assert.isTrue(rejectsStructurally(GetPaymentResponse, noMerchant))
    assert.isTrue(rejectsStructurally(MerchantInfo, { iconUrl: null }))
  })
})
