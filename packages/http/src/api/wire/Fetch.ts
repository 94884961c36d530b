import { Schema } from "effect"
import { Action } from "./Action.ts"
import { OptionId } from "./PaymentOption.ts"

/** Body of `POST /v1/gateway/payment/{id}/fetch`: the option and its `build` action's `data.data`. */
export const FetchRequest = Schema.Struct({
  optionId: OptionId,
  data: Schema.String
}).annotate({ identifier: "FetchRequest" })

/** Decoded {@link FetchRequest}. */
export type FetchRequest = typeof FetchRequest.Type

/** Response of `POST /v1/gateway/payment/{id}/fetch`: the resolved actions. */
export const FetchResponse = Schema.Struct({
  actions: Schema.Array(Action)
}).annotate({ identifier: "FetchResponse" })

/** Decoded {@link FetchResponse}. */
export type FetchResponse = typeof FetchResponse.Type
