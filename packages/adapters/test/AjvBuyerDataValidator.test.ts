import { AjvBuyerDataValidator } from "@paygate/adapters"
import { buyerDataSchema, BuyerDataValidator, type JsonSchema } from "@paygate/domain"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

const problems = (data: unknown, schema: JsonSchema = buyerDataSchema) =>
  Effect.runPromise(BuyerDataValidator.use((v) => v.problems(schema, data)).pipe(Effect.provide(AjvBuyerDataValidator.layer)))

const valid = { fullName: "Ada Lovelace", dob: "1815-12-10", tosConfirmed: true, pobCountry: "GB", pobAddress: "London" }

describe("AjvBuyerDataValidator (the spec's JSON Schema, draft 2020-12)", () => {
  it("accepts data with the place of birth, of residence, or both", async () => {
    expect(await problems(valid)).toEqual([])
    expect(await problems({ fullName: "A", dob: "2000-02-29", tosConfirmed: true, porCountry: "DE", porAddress: "Berlin" })).toEqual([])
    expect(await problems({ ...valid, porCountry: "FR", porAddress: "x".repeat(200) })).toEqual([])
  })

  it("names every failing field, never the value", async () => {
    const found = await problems({
      fullName: "",
      dob: "2023-02-30",
      tosConfirmed: false,
      pobCountry: "gb",
      pobAddress: "y".repeat(201),
      nickname: "Ada"
    })
    expect(found).toEqual([
      "nickname is not allowed",
      "fullName must NOT have fewer than 1 characters",
      "dob must be a valid date (YYYY-MM-DD)",
      "pobCountry must match pattern \"^[A-Z]{2}$\"",
      "pobAddress must NOT have more than 200 characters",
      "tosConfirmed must be true"
    ])
    expect(found.join(" ")).not.toContain("yyyy")
  })

  it("lists the alternatives when neither place is complete, and missing required fields", async () => {
    expect(await problems({ fullName: "Ada", pobCountry: "GB" })).toEqual([
      "one of these is needed: pobAddress is required, or porCountry is required and porAddress is required",
      "dob is required",
      "tosConfirmed is required"
    ])
  })

  it("checks types, including the whole object", async () => {
    expect(await problems({ ...valid, tosConfirmed: "true", dob: 19151210 })).toEqual([
      "dob must be string",
      "tosConfirmed must be boolean",
      "tosConfirmed must be true"
    ])
    expect(await problems([])).toEqual(["data must be object"])
    expect(await problems("Ada")).toEqual(["data must be object"])
  })

  it("validates against whichever schema it is given", async () => {
    const schema: JsonSchema = { type: "object", properties: { age: { type: "integer", minimum: 18 } }, required: ["age"] }
    expect(await problems({ age: 20 }, schema)).toEqual([])
    expect(await problems({ age: 17 }, schema)).toEqual(["age must be >= 18"])
  })
})
