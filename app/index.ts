/**
 * @paygate/app: the composition root's layers as a library (`Application`, `ApiHost` for the HTTP
 * API, `Operator` for the operator CLI), for the hosts that run paygate in their own process (the
 * test harnesses). The entrypoints beside it (`main.ts`, `api.ts`, `worker.ts`, `admin.ts`) run them.
 *
 * @module
 */
export * as ApiHost from "./ApiHost.ts"
export * as Application from "./Application.ts"
export * as Operator from "./Operator.ts"
