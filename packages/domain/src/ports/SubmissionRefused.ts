import { Schema } from "effect"

/**
 * The chain adapter will not send a transaction now: its simulation reverts (the payer is short of
 * funds, the authorization is used or expired), it needs more gas than the ceiling for its kind,
 * or the executor's gas budget is spent. Nothing was sent and no gas paid; the work may succeed
 * later (the payer is funded again, the budget window moves on), so it stays where it is.
 * It does not reach the API (no contract code).
 */
export class SubmissionRefused extends Schema.TaggedError<SubmissionRefused>()("SubmissionRefused", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  message: Schema.String
}) {}
