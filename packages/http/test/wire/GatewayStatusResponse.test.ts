import { assert, describe, it } from "@effect/vitest"
import { GatewayStatusResponse } from "../../src/api/wire/GatewayStatusResponse.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("GatewayStatusResponse", () => {
  it("round-trips open and final statuses byte for byte", () => {
    for (const example of [wireExamples.gatewayStatus, wireExamples.gatewayStatusFinal]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(GatewayStatusResponse, text), text)
    }
  })

  it("writes a missing pollInMs as null", () => {
    const text = JSON.stringify({ status: "succeeded", isFinal: true })
    assert.strictEqual(reencodeJson(GatewayStatusResponse, text), JSON.stringify(wireExamples.gatewayStatusFinal))
  })

  it("rejects a merchant-vocabulary status", () => {
    assert.isTrue(rejectsStructurally(GatewayStatusResponse, { ...wireExamples.gatewayStatus, status: "pending" }))
  })
})
