/**
 * The HTTP API's wire shapes: how the domain's values (payment records and webhook envelopes,
 * options, actions, amounts, buyer data) and the API's own request and response bodies appear on
 * the wire, with their OpenAPI names. JSON types and shapes only (a decode failure is
 * `invalid_params`); rule checks (CAIP, money, URLs, counts) live in the domain. Nullable fields
 * decode missing as `null` and always encode as present.
 *
 * @module
 */
export * from "./Action.ts"
export * from "./Amount.ts"
export * from "./CancelResponse.ts"
export * from "./CollectData.ts"
export * from "./CollectDataSubmission.ts"
export * from "./Confirm.ts"
export * from "./DepositOption.ts"
export * from "./Fetch.ts"
export * from "./GatewayStatusResponse.ts"
export * from "./GetPaymentOptions.ts"
export * from "./MerchantPayment.ts"
export * from "./NonNegativeInt.ts"
export * from "./nullableKey.ts"
export * from "./PaymentInfo.ts"
export * from "./PaymentOption.ts"
export * from "./PaymentRecord.ts"
export * from "./PollInMs.ts"
export * from "./SubscriptionRecord.ts"
export * from "./TeamRole.ts"
export * from "./WebhookEnvelope.ts"
export * from "./X402.ts"
