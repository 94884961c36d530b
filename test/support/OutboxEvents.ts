import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { TestServer } from "./TestServer.ts"

/** An outbox event as a test reads it: its type and its decoded payload. */
export interface OutboxEvent {
  readonly type: string
  readonly payload: any
}

/** A payment's outbox events in the order they were written (PGlite hands `jsonb` back as text). */
export const outboxEventsOf = (server: Pick<TestServer, "run">, paymentId: string): Promise<ReadonlyArray<OutboxEvent>> =>
  server.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly type: string; readonly payload: unknown }>`SELECT type, payload FROM outbox_events
      WHERE payment_id = ${paymentId} ORDER BY created_at, id`
    return rows.map((row) => ({ type: row.type, payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload }))
  }).pipe(Effect.orDie))
