/**
 * A payment's rows of one table (its refunds, its payouts) read so that reads started together run
 * as one statement (`SharedStatement`): a page of payment records reads each table once, not once
 * per payment. Alone or together it is the same statement, the ids one array parameter.
 *
 * @module
 */
import { Effect, Exit } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import * as SharedStatement from "./SharedStatement.ts"

// One statement serves at most this many payments (a page is far fewer).
const maxBatch = 500

/**
 * `rowsOf(ids)` selects the rows of the payments `ids` in the order each payment's list keeps
 * (their `payment_id` column included); each read answers its payment's rows, decoded.
 */
export const make = <B>(
  sql: SqlClient.SqlClient,
  rowsOf: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError>,
  decode: (row: Record<string, unknown>) => B
) => {
  const grouped = (ids: ReadonlyArray<string>) =>
    Effect.map(rowsOf(ids.length === 1 ? ids : [...new Set(ids)]), (rows) => {
      const byPayment = new Map<unknown, Array<B>>()
      for (const row of rows) {
        const list = byPayment.get(row.payment_id)
        if (list === undefined) byPayment.set(row.payment_id, [decode(row)])
        else list.push(decode(row))
      }
      return ids.map((id): ReadonlyArray<B> => byPayment.get(id) ?? [])
    })
  return SharedStatement.make<string, ReadonlyArray<B>, never>(sql, {
    alone: (id) => Effect.orDie(Effect.map(grouped([id]), ([rows]) => rows!)),
    together: (ids) => Effect.map(grouped(ids), (lists) => lists.map((rows) => Exit.succeed(rows))),
    max: maxBatch
  })
}
