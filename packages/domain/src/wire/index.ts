/**
 * Structural wire schemas shared by the HTTP API, the use cases and the worker (payment records and
 * webhook payloads, options, actions, buyer data): JSON types and shapes only
 * (a decode failure is `invalid_params`); rule checks (CAIP, money, URLs, counts) live elsewhere.
 * Nullable fields decode missing as `null` and always encode as present.
 *
 * @module
 */
export * from "./Action.ts"
export * from "./Amount.ts"
export * from "./CollectData.ts"
export * from "./DepositOption.ts"
export * from "./NonNegativeInt.ts"
export * from "./nullableKey.ts"
export * from "./PaymentInfo.ts"
export * from "./PaymentOption.ts"
export * from "./PollInMs.ts"
export * from "./PaymentRecord.ts"
