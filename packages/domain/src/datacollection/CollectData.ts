/** Input type of a {@link CollectDataField}. */
export type CollectDataFieldType = "text" | "date" | "checkbox"

/** One field of the deprecated `collectData.fields` list. */
export interface CollectDataField {
  readonly id: string
  readonly name: string
  readonly required: boolean
  readonly type: CollectDataFieldType
}

/**
 * Buyer data to collect (spec "CollectData"): the deprecated `fields`, the JSON Schema the
 * collected data must satisfy (any JSON object, passed through untouched) and the web view `url`.
 */
export interface CollectData {
  readonly fields: ReadonlyArray<CollectDataField>
  readonly schema: { readonly [key: string]: unknown }
  readonly url: string
}
