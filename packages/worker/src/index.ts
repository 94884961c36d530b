/**
 * @paygate/worker: background jobs (webhook dispatch and delivery, payment expiry).
 *
 * @module
 */
export * from "./Worker.ts"
