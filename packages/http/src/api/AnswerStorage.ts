import { Context } from "effect"

/**
 * How a POST with an `Idempotency-Key` keeps its answer with its change (the pipeline reads it from
 * the endpoint's annotations; unannotated POSTs are `transaction`):
 *
 * - `transaction`: the handler runs in one database transaction with its stored answer
 *   (`IdempotencyStore.completing`): both commit, or neither.
 * - `ownWrite`: the handler's single write stores the answer itself (the payment creates: payment,
 *   outbox event and answer in one statement); a transaction would only add `BEGIN` and `COMMIT`.
 * - `afterWork`: the answer is stored after the work, outside any transaction, for operations that
 *   call other servers (a chain node, a webhook receiver) and must not hold a database connection
 *   and transaction meanwhile (embedded PGlite serves one transaction at a time). Their own writes
 *   are compare-and-set or repeatable, so a retry after a crash between the two answers from the
 *   state they left (a repeated confirm answers the current state).
 */
export class AnswerStorage extends Context.Service<AnswerStorage, "transaction" | "ownWrite" | "afterWork">()(
  "@paygate/http/AnswerStorage"
) {}
