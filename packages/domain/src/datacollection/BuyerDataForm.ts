import { Result } from "effect"
import type { CollectDataField, CollectDataFieldType } from "../datacollection/CollectData.ts"
import type { CollectedDataField } from "./CollectedData.ts"

/** A JSON Schema document, passed through to wallets untouched. */
export type JsonSchema = { readonly [keyword: string]: unknown }

/** Buyer data as the schema sees it: a JSON object keyed by the schema's property names. */
export type BuyerData = { readonly [field: string]: unknown }

/** What a buyer fills in: the JSON Schema the data must satisfy and its deprecated field list. */
export interface BuyerDataForm {
  readonly schema: JsonSchema
  /** Deprecated `collectData.fields`, derived from {@link BuyerDataForm.schema}. */
  readonly fields: ReadonlyArray<CollectDataField>
}

const country = { type: "string", pattern: "^[A-Z]{2}$" }
const address = { type: "string", maxLength: 200 }

/**
 * The buyer data schema of service-spec "CollectData" (JSON Schema draft 2020-12): full name,
 * date of birth, terms confirmed, and the place of birth or the place of residence (country and
 * address; both places are fine). `title`s name the fields for forms built from the schema.
 */
export const buyerDataSchema: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    fullName: { type: "string", minLength: 1, title: "Full name" },
    dob: { type: "string", format: "date", title: "Date of birth" },
    pobCountry: { ...country, title: "Country of birth" },
    pobAddress: { ...address, title: "Place of birth" },
    porCountry: { ...country, title: "Country of residence" },
    porAddress: { ...address, title: "Address of residence" },
    tosConfirmed: { type: "boolean", const: true, title: "I confirm the terms of service" }
  },
  required: ["fullName", "dob", "tosConfirmed"],
  anyOf: [{ required: ["pobCountry", "pobAddress"] }, { required: ["porCountry", "porAddress"] }],
  additionalProperties: false
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const propertiesOf = (schema: JsonSchema): ReadonlyArray<readonly [string, { readonly [key: string]: unknown }]> =>
  isObject(schema.properties)
    ? Object.entries(schema.properties).flatMap(([id, property]) => (isObject(property) ? [[id, property] as const] : []))
    : []

const inputType = (property: { readonly [key: string]: unknown }): CollectDataFieldType =>
  property.type === "boolean" ? "checkbox" : property.format === "date" ? "date" : "text"

/**
 * The deprecated field list of a schema: one field per property, `required` when the schema
 * always requires it (properties required only in some alternative, like the place of birth or
 * of residence, are not).
 */
export const fieldsOf = (schema: JsonSchema): ReadonlyArray<CollectDataField> => {
  const required = Array.isArray(schema.required) ? schema.required : []
  return propertiesOf(schema).map(([id, property]) => ({
    id,
    name: typeof property.title === "string" ? property.title : id,
    required: required.includes(id),
    type: inputType(property)
  }))
}

/** The form every payment that needs buyer data uses. */
export const buyerDataForm: BuyerDataForm = { schema: buyerDataSchema, fields: fieldsOf(buyerDataSchema) }

/**
 * Buyer data from a confirm's `collectedData.fields` (values are strings there): each id becomes a
 * property; the value of a boolean property is `true` for `"true"` and `false` for `"false"`, any
 * other value is kept as sent for the schema to judge. Fails when an id appears twice.
 */
export const buyerDataFromFields = (
  schema: JsonSchema,
  fields: ReadonlyArray<CollectedDataField>
): Result.Result<BuyerData, string> => {
  const booleans = new Set(propertiesOf(schema).filter(([, property]) => property.type === "boolean").map(([id]) => id))
  const data: Record<string, unknown> = {}
  for (const { id, value } of fields) {
    if (Object.hasOwn(data, id)) return Result.fail(`collectedData.fields lists ${id} more than once.`)
    data[id] = booleans.has(id) && (value === "true" || value === "false") ? value === "true" : value
  }
  return Result.succeed(data)
}
