/**
 * A process that takes a reused in-memory database (`ReusedMemoryDatabases.ts`), hands it back so
 * that it waits for the next suite, says "released" and stays until it is signalled: what a test
 * worker is when vitest ends it. For `test/reused-memory-databases.test.ts`.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { migratedMemoryDatabase } from "./ReusedMemoryDatabases.ts"

await Effect.runPromise(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT 1`
}).pipe(Effect.provide(migratedMemoryDatabase())))
process.stdout.write("released\n")
setInterval(() => {}, 60_000)
