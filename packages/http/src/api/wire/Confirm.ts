import { PaymentStatus } from "@paygate/domain"
import { Schema } from "effect"
import { Amount } from "./Amount.ts"
import { OptionId } from "./PaymentOption.ts"
import { PollInMs } from "./PollInMs.ts"
import { nullableKey } from "./nullableKey.ts"

/** Result of one `walletRpc` action (e.g. a signature or a transaction hash), in `confirm.results`. */
export const WalletRpcResult = Schema.Struct({
  type: Schema.Literal("walletRpc"),
  data: Schema.Array(Schema.String)
}).annotate({ identifier: "WalletRpcResult" })

/** Decoded {@link WalletRpcResult}. */
export type WalletRpcResult = typeof WalletRpcResult.Type

/** One collected value in `confirm.collectedData.fields`. */
export const CollectedDataField = Schema.Struct({
  id: Schema.String,
  value: Schema.String
}).annotate({ identifier: "CollectedDataField" })

/** Decoded {@link CollectedDataField}. */
export type CollectedDataField = typeof CollectedDataField.Type

/** Buyer data sent along with a confirm. */
export const CollectedData = Schema.Struct({
  fields: Schema.Array(CollectedDataField)
}).annotate({ identifier: "CollectedData" })

/** Decoded {@link CollectedData}. */
export type CollectedData = typeof CollectedData.Type

/** Body of `POST /v1/gateway/payment/{id}/confirm`; `results` follow the option's actions in order. */
export const ConfirmRequest = Schema.Struct({
  optionId: OptionId,
  results: Schema.Array(WalletRpcResult),
  collectedData: nullableKey(CollectedData)
}).annotate({ identifier: "ConfirmRequest" })

/** Decoded {@link ConfirmRequest}. */
export type ConfirmRequest = typeof ConfirmRequest.Type

/**
 * The `info` of a confirm response: the transaction id and the chosen option's amount. It exists only
 * once a transaction id is known, so `txId` is never null (real wallet SDKs parse it as a string
 * and abandon the payment on a null).
 */
export const ConfirmInfo = Schema.Struct({
  txId: Schema.String,
  optionAmount: Amount
}).annotate({ identifier: "ConfirmInfo" })

/** Decoded {@link ConfirmInfo}. */
export type ConfirmInfo = typeof ConfirmInfo.Type

/**
 * Response of `POST /v1/gateway/payment/{id}/confirm` (API rules §10): `info` is `null` until a
 * transaction id is known (a pull payment's until the executor has sent its transfer; a push
 * payment's carries the wallet's transaction at once).
 */
export const ConfirmResponse = Schema.Struct({
  status: PaymentStatus,
  isFinal: Schema.Boolean,
  pollInMs: PollInMs,
  info: nullableKey(ConfirmInfo)
}).annotate({ identifier: "ConfirmResponse" })

/** Decoded {@link ConfirmResponse}. */
export type ConfirmResponse = typeof ConfirmResponse.Type
