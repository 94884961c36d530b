import { Context } from "effect"

/**
 * How a POST with an `Idempotency-Key` keeps its response with its change (the pipeline reads it from
 * the endpoint's annotations; unannotated POSTs are `transaction`):
 *
 * - `transaction`: the handler runs in one database transaction with its stored response
 *   (`IdempotencyStore.completing`): both commit, or neither.
 * - `singleWrite`: the handler's one write, a new payment, is held until the response is known and
 *   stored with it in one statement (`IdempotencyStore.completingWrite`: payment, outbox event and
 *   response); a transaction would only add `BEGIN` and `COMMIT` and hold a connection meanwhile.
 * - `afterWork`: the response is stored after the work, outside any transaction, for operations that
 *   call other servers (a chain node, a webhook receiver) and must not hold a database connection
 *   and transaction meanwhile (embedded PGlite serves one transaction at a time). Their own writes
 *   are compare-and-set or repeatable, so a retry after a crash between the two responds from the
 *   state they left (a repeated confirm responds with the current state).
 */
export class ResponseStorage extends Context.Service<ResponseStorage, "transaction" | "singleWrite" | "afterWork">()(
  "@paygate/http/ResponseStorage"
) {}
