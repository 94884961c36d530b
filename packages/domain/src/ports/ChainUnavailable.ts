import { Schema } from "effect"

/**
 * A chain could not be asked or told (RPC down, timeout, node refusing for a transient reason).
 * Never a buyer's error and never an outcome: work that meets it stays where it is and is retried.
 * It does not reach the API (no contract code): use cases keep the payment unchanged instead.
 */
export class ChainUnavailable extends Schema.TaggedError<ChainUnavailable>()("ChainUnavailable", {
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  message: Schema.String
}) {}
