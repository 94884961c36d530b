/**
 * @paygate/http: the HTTP API of paygate (`effect/http-api`). The contract ({@link PaygateApi}),
 * the routes that serve it ({@link AppRoutes}) and a typed client derived from the contract.
 *
 * @module
 */
export { PaygateApi } from "./api/Api.ts"
export { AppRoutes } from "./App.ts"
export * from "./client.ts"
