/**
 * @paygate/worker: background jobs (webhook dispatch and delivery, payment expiry, the chain
 * executor).
 *
 * @module
 */
export * from "./Executor.ts"
export * from "./Worker.ts"
