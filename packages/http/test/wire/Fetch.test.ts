import { assert, describe, it } from "@effect/vitest"
import { FetchRequest, FetchResponse } from "../../src/api/wire/Fetch.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("Fetch", () => {
  it("round-trips request and response byte for byte", () => {
    const request = JSON.stringify(wireExamples.fetchRequest)
    assert.strictEqual(reencodeJson(FetchRequest, request), request)
    const response = JSON.stringify(wireExamples.fetchResponse)
    assert.strictEqual(reencodeJson(FetchResponse, response), response)
  })

  it("rejects a missing data, an over-long option id and an unknown action type", () => {
    assert.isTrue(rejectsStructurally(FetchRequest, { optionId: "x" }))
    assert.isTrue(rejectsStructurally(FetchRequest, { optionId: "a".repeat(65_537), data: "x" }))
    assert.isTrue(rejectsStructurally(FetchResponse, { actions: [{ type: "other", data: {} }] }))
  })
})
