import { assert, describe, it } from "@effect/vitest"
import { ConfirmRequest, ConfirmResponse } from "../../src/api/wire/Confirm.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("ConfirmRequest", () => {
  it("round-trips with collected data byte for byte", () => {
    const text = JSON.stringify(wireExamples.confirmRequest)
    assert.strictEqual(reencodeJson(ConfirmRequest, text), text)
  })

  it("decodes a missing collectedData as null", () => {
    const { collectedData: _collectedData, ...input } = wireExamples.confirmRequest
    assert.strictEqual(
      reencodeJson(ConfirmRequest, JSON.stringify(input)),
      JSON.stringify({ ...input, collectedData: null })
    )
  })

  it("rejects non-walletRpc results, non-string result data and non-string values", () => {
    const base = wireExamples.confirmRequest
    assert.isTrue(rejectsStructurally(ConfirmRequest, { ...base, results: [{ type: "build", data: ["0x"] }] }))
    assert.isTrue(rejectsStructurally(ConfirmRequest, { ...base, results: [{ type: "walletRpc", data: [1] }] }))
    assert.isTrue(
      rejectsStructurally(ConfirmRequest, { ...base, collectedData: { fields: [{ id: "tosConfirmed", value: true }] } })
    )
    const { results: _results, ...noResults } = base
    assert.isTrue(rejectsStructurally(ConfirmRequest, noResults))
  })
})

describe("ConfirmResponse", () => {
  it("round-trips byte for byte: no info yet, info with its transaction id, a final answer", () => {
    const final = { status: "failed", isFinal: true, pollInMs: null, info: null }
    for (const example of [wireExamples.confirmResponse, wireExamples.confirmResponseWithTx, final]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(ConfirmResponse, text), text)
    }
  })

  it("writes missing pollInMs and info as null", () => {
    const input = { status: "processing", isFinal: false }
    const expected = { status: "processing", isFinal: false, pollInMs: null, info: null }
    assert.strictEqual(reencodeJson(ConfirmResponse, JSON.stringify(input)), JSON.stringify(expected))
  })

  it("never has an info without a transaction id: a null or missing txId is refused (API rules §10)", () => {
    const base = wireExamples.confirmResponseWithTx
    assert.isTrue(rejectsStructurally(ConfirmResponse, { ...base, info: { ...base.info, txId: null } }))
    assert.isTrue(rejectsStructurally(ConfirmResponse, { ...base, info: { optionAmount: base.info.optionAmount } }))
  })

  it("rejects a non-integer pollInMs and a non-boolean isFinal", () => {
    assert.isTrue(rejectsStructurally(ConfirmResponse, { ...wireExamples.confirmResponse, pollInMs: 1.5 }))
    assert.isTrue(rejectsStructurally(ConfirmResponse, { ...wireExamples.confirmResponse, isFinal: "false" }))
  })
})
