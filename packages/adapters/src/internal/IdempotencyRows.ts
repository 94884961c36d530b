/**
 * The `idempotency_keys` statements two adapters share: `SqlIdempotencyStore` completes a key on
 * its own, a held payment insert (internal/HeldWrite.ts) completes it inside the payment's statement
 * (so the response commits with what it describes, and that write is fenced on the lease).
 *
 * @module
 */
import type { IdempotencyCompletion, IdempotencyLease, IdempotencyScope } from "@paygate/domain"
import type { SqlClient } from "effect/sql"

/** The row of a key's scope. */
export const keyWhere = (sql: SqlClient.SqlClient, scope: IdempotencyScope) =>
  sql`partner_id = ${scope.partnerId} AND route = ${scope.route} AND key = ${scope.key}`

/** The row of a key still in flight and held by this lease's token. */
export const heldWhere = (sql: SqlClient.SqlClient, lease: IdempotencyLease) =>
  sql`${keyWhere(sql, lease.scope)} AND status_code IS NULL AND lease_token = ${lease.token}`

/** The statement that stores a held key's response (`RETURNING 1` when it did). */
export const completeStatement = (sql: SqlClient.SqlClient, completion: IdempotencyCompletion) =>
  sql`UPDATE idempotency_keys SET status_code = ${completion.response.status}, response_body = ${completion.response.body},
      lease_token = NULL, lease_until = NULL
    WHERE ${heldWhere(sql, completion.lease)} RETURNING 1 AS held`
