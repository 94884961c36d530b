import { assert, describe, it } from "@effect/vitest"
import { CancelResponse } from "../../src/api/wire/CancelResponse.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("CancelResponse", () => {
  it("round-trips user and merchant cancellations byte for byte", () => {
    const byMerchant = { ...wireExamples.cancelResponse, cancelledReason: "cancelled_by_merchant" }
    for (const example of [wireExamples.cancelResponse, byMerchant]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(CancelResponse, text), text)
    }
  })

  it("rejects another status, an unknown reason and a non-integer cancelledAt", () => {
    const base = wireExamples.cancelResponse
    assert.isTrue(rejectsStructurally(CancelResponse, { ...base, status: "failed" }))
    assert.isTrue(rejectsStructurally(CancelResponse, { ...base, cancelledReason: "timeout" }))
    assert.isTrue(rejectsStructurally(CancelResponse, { ...base, cancelledAt: 1767225400.5 }))
  })
})
