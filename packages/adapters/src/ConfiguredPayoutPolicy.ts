/**
 * The domain's `PayoutPolicy` from `PAYOUT_MAX_ATTEMPTS` (default 5): after that many failed attempts a
 * payout or receipt refund is `failed`, until the partner or the operator retries it.
 *
 * @module
 */
import { PayoutPolicy } from "@paygate/domain"
import { Effect, Layer } from "effect"
import * as Configuration from "./Configuration.ts"

export const layer = Layer.unwrap(
  Effect.map(Configuration.payouts, ({ maxAttempts }) => Layer.succeed(PayoutPolicy, { maxAttempts }))
)
