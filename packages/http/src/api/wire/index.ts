/**
 * The wire shapes only the HTTP API uses: its request bodies and the responses no use case produces
 * (merchant create and status, cancel, status polls, the gateway's options, fetch, confirm and
 * collect-data exchanges). Shapes shared with the worker or produced by use cases (payment records,
 * webhook payloads, options, actions) stay in the domain's `Wire`.
 *
 * @module
 */
export * from "./CancelResponse.ts"
export * from "./CollectDataSubmission.ts"
export * from "./Confirm.ts"
export * from "./Fetch.ts"
export * from "./GatewayStatusResponse.ts"
export * from "./GetPaymentOptions.ts"
export * from "./MerchantPayment.ts"
export * from "./X402.ts"
