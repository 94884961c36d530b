/**
 * @paygate/app: the composition root's layers as a library (`Application`, and `ApiHost` for the
 * HTTP API), for the hosts that run paygate in their own process (the test harnesses). The entrypoints beside it (`main.ts`, `api.ts`,
 * `worker.ts`, `admin.ts`) run them.
 *
 * @module
 */
export * as ApiHost from "./ApiHost.ts"
export * as Application from "./Application.ts"
