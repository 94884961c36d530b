import { Wire } from "@paygate/domain"
import { Schema } from "effect"

/** Body of `POST /v1/gateway/payment/{id}/fetch`: the option and its `build` action's `data.data`. */
export const FetchRequest = Schema.Struct({
  optionId: Wire.OptionId,
  data: Schema.String
}).annotate({ identifier: "FetchRequest" })

/** Decoded {@link FetchRequest}. */
export type FetchRequest = typeof FetchRequest.Type

/** Response of `POST /v1/gateway/payment/{id}/fetch`: the resolved actions. */
export const FetchResponse = Schema.Struct({
  actions: Schema.Array(Wire.Action)
}).annotate({ identifier: "FetchResponse" })

/** Decoded {@link FetchResponse}. */
export type FetchResponse = typeof FetchResponse.Type
