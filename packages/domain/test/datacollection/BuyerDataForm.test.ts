import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { buyerDataForm, buyerDataFromFields, buyerDataSchema, fieldsOf } from "../../src/datacollection/BuyerDataForm.ts"

describe("buyer data form", () => {
  it("is the spec's JSON Schema (draft 2020-12)", () => {
    expect(buyerDataSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        fullName: { type: "string", minLength: 1 },
        dob: { type: "string", format: "date" },
        pobCountry: { type: "string", pattern: "^[A-Z]{2}$" },
        pobAddress: { type: "string", maxLength: 200 },
        porCountry: { type: "string", pattern: "^[A-Z]{2}$" },
        porAddress: { type: "string", maxLength: 200 },
        tosConfirmed: { type: "boolean", const: true }
      },
      required: ["fullName", "dob", "tosConfirmed"],
      anyOf: [{ required: ["pobCountry", "pobAddress"] }, { required: ["porCountry", "porAddress"] }],
      additionalProperties: false
    })
  })

  it("derives the deprecated field list from the schema", () => {
    expect(buyerDataForm.fields).toEqual([
      { id: "fullName", name: "Full name", required: true, type: "text" },
      { id: "dob", name: "Date of birth", required: true, type: "date" },
      { id: "pobCountry", name: "Country of birth", required: false, type: "text" },
      { id: "pobAddress", name: "Place of birth", required: false, type: "text" },
      { id: "porCountry", name: "Country of residence", required: false, type: "text" },
      { id: "porAddress", name: "Address of residence", required: false, type: "text" },
      { id: "tosConfirmed", name: "I confirm the terms of service", required: true, type: "checkbox" }
    ])
    expect(fieldsOf({ type: "object", properties: { nick: { type: "string" } } })).toEqual([
      { id: "nick", name: "nick", required: false, type: "text" }
    ])
  })

  it("turns confirm's collectedData fields into data: strings, and booleans for boolean properties", () => {
    const data = buyerDataFromFields(buyerDataSchema, [
      { id: "fullName", value: "Ada Lovelace" },
      { id: "dob", value: "1815-12-10" },
      { id: "tosConfirmed", value: "true" },
      { id: "porCountry", value: "GB" },
      { id: "porAddress", value: "London" },
      { id: "extra", value: "kept for the schema to refuse" }
    ])
    expect(Result.getOrThrow(data)).toEqual({
      fullName: "Ada Lovelace",
      dob: "1815-12-10",
      tosConfirmed: true,
      porCountry: "GB",
      porAddress: "London",
      extra: "kept for the schema to refuse"
    })
    expect(Result.getOrThrow(buyerDataFromFields(buyerDataSchema, [{ id: "tosConfirmed", value: "false" }]))).toEqual({ tosConfirmed: false })
    expect(Result.getOrThrow(buyerDataFromFields(buyerDataSchema, [{ id: "tosConfirmed", value: "yes" }]))).toEqual({ tosConfirmed: "yes" })
    const twice = buyerDataFromFields(buyerDataSchema, [{ id: "dob", value: "1815-12-10" }, { id: "dob", value: "1815-12-11" }])
    expect(Result.isFailure(twice) && twice.failure).toBe("collectedData.fields lists dob more than once.")
  })
})
