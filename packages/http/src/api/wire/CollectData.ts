import { Schema } from "effect"

/** Input type of a {@link CollectDataField}. */
export const CollectDataFieldType = Schema.Literals(["text", "date", "checkbox"])

/** Decoded {@link CollectDataFieldType}. */
export type CollectDataFieldType = typeof CollectDataFieldType.Type

/** One field of the deprecated `collectData.fields` list. */
export const CollectDataField = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  required: Schema.Boolean,
  type: CollectDataFieldType
}).annotate({ identifier: "CollectDataField" })

/** Decoded {@link CollectDataField}. */
export type CollectDataField = typeof CollectDataField.Type

/**
 * Buyer data to collect (spec "CollectData"): the deprecated `fields`, the JSON Schema the
 * collected data must satisfy (any JSON object, passed through untouched) and the web view `url`.
 */
export const CollectData = Schema.Struct({
  fields: Schema.Array(CollectDataField),
  schema: Schema.Record(Schema.String, Schema.Unknown),
  url: Schema.String
}).annotate({ identifier: "CollectData" })

/** Decoded {@link CollectData}. */
export type CollectData = typeof CollectData.Type
