import { assert, describe, it } from "@effect/vitest"
import { CollectData } from "../../src/api/wire/CollectData.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("CollectData", () => {
  it("round-trips the spec's travel-rule schema byte for byte", () => {
    const text = JSON.stringify(wireExamples.collectData)
    assert.strictEqual(reencodeJson(CollectData, text), text)
  })

  it("accepts an empty deprecated fields list", () => {
    const text = JSON.stringify({ ...wireExamples.collectData, fields: [] })
    assert.strictEqual(reencodeJson(CollectData, text), text)
  })

  it("rejects an unknown field type, a non-boolean required and a non-object schema", () => {
    const base = wireExamples.collectData
    const field = { id: "x", name: "X", required: true, type: "email" }
    assert.isTrue(rejectsStructurally(CollectData, { ...base, fields: [field] }))
    assert.isTrue(rejectsStructurally(CollectData, { ...base, fields: [{ ...field, type: "text", required: "yes" }] }))
    for (const schema of [[], null, "{}", true]) {
      assert.isTrue(rejectsStructurally(CollectData, { ...base, schema }), JSON.stringify(schema))
    }
    const { url: _url, ...noUrl } = base
    assert.isTrue(rejectsStructurally(CollectData, noUrl))
  })
})
