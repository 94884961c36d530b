/**
 * The write `SqlIdempotencyStore.completingWrite` holds back while its request decides on a
 * response: `SqlPaymentRepository.insert` hands its statement over here instead of running it, and
 * the store runs it with the response, so the payment, its events and the response commit in one
 * statement (internal/GroupCommit.ts) with no transaction open while the request runs.
 *
 * @module
 */
import type { IdempotencyCompletion, IdempotencyConflict } from "@paygate/domain"
import { Context, type Effect } from "effect"

/** A held insert: runs with the request's response (or none), failing when the key's lease was lost. */
export type HeldInsert = (completion: IdempotencyCompletion | undefined) => Effect.Effect<void, IdempotencyConflict>

/** Present while a `completingWrite` request runs: where its one insert is held. */
export class HeldWrite extends Context.Service<HeldWrite, {
  readonly hold: (insert: HeldInsert) => Effect.Effect<void>
}>()("@paygate/adapters/HeldWrite") {}
