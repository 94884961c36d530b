import { Schema } from "effect"

/**
 * Body of `POST /v1/gateway/payment/{id}/collect-data`, sent by the data collection page: the
 * paying account (CAIP-10) and its data, a JSON object for the form's schema.
 */
export const CollectDataRequest = Schema.Struct({
  account: Schema.String,
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "CollectDataRequest" })

/** Decoded {@link CollectDataRequest}. */
export type CollectDataRequest = typeof CollectDataRequest.Type

/** Response of `POST /v1/gateway/payment/{id}/collect-data`: the data is valid and stored. */
export const CollectDataResponse = Schema.Struct({
  accepted: Schema.Literal(true)
}).annotate({ identifier: "CollectDataResponse" })

/** Decoded {@link CollectDataResponse}. */
export type CollectDataResponse = typeof CollectDataResponse.Type
