/** One value of buyer data a wallet collected itself: a form field's id and its value, as text. */
export interface CollectedDataField {
  readonly id: string
  readonly value: string
}

/**
 * Buyer data a wallet sends along with its confirm (API rules §10 data collection), one value per
 * field of the form; `buyerDataFromFields` reads it as the schema's JSON object.
 */
export interface CollectedData {
  readonly fields: ReadonlyArray<CollectedDataField>
}
