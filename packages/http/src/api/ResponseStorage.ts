import { Context } from "effect"

/**
 * How a POST with an `Idempotency-Key` keeps its response with its change (the pipeline reads it from
 * the endpoint's annotations; unannotated POSTs are `transaction`):
 *
 * - `transaction`: the handler runs in one database transaction with its stored response
 *   (`IdempotencyStore.completing`): both commit, or neither.
 * - `ownWrite`: the handler's single write stores the response itself (the payment creates: payment,
 *   outbox event and response in one statement); a transaction would only add `BEGIN` and `COMMIT`.
 * - `afterWork`: the response is stored after the work, outside any transaction, for operations that
 *   call other servers (a chain node, a webhook receiver) and must not hold a database connection
 *   and transaction meanwhile (embedded PGlite serves one transaction at a time). Their own writes
 *   are compare-and-set or repeatable, so a retry after a crash between the two responds from the
 *   state they left (a repeated confirm responds with the current state).
 */
export class ResponseStorage extends Context.Service<ResponseStorage, "transaction" | "ownWrite" | "afterWork">()(
  "@paygate/http/ResponseStorage"
) {}
