/**
 * The suites' in-memory databases: under `npm test`, started from the run's migrated snapshot and
 * reused within a test process. When a suite's database layer closes, its database is emptied (every
 * table's rows deleted, sequences restarted, the session discarded) and the next suite that asks for
 * one gets it, because emptying costs a small fraction of the CPU of starting PGlite from the
 * snapshot (unpacking it into PGlite's in-memory files). Suites never share one at the same time: a suite that asks while every
 * database is taken gets a new one. A database whose schema a suite changed (a test's trigger or
 * table) or that does not empty cleanly is closed, never handed on. Outside `npm test` (no snapshot)
 * each layer is a new empty database, as `Database.layerMemory()`.
 */
import { Database } from "@paygate/adapters"
import type { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { rmSync } from "node:fs"
import { dirname } from "node:path"
import { migratedSnapshot } from "./MigratedDatabases.ts"

interface Started {
  readonly scope: Scope.Closeable
  readonly server: Database.EmbeddedServer
}

// Databases emptied and waiting for the next suite of this process.
const waiting: Array<Started> = []

// The migrated schema: every table, column, index, constraint, trigger and function of `public`.
const schemaOf = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ readonly schema: string }>`
      SELECT md5(string_agg(item, ',' ORDER BY item)) AS schema FROM (
        SELECT c.relname || ':' || c.relkind::text || ':' || coalesce(a.attname, '') || ':' || coalesce(a.atttypid::text, '')
          || ':' || coalesce(a.attnotnull::text, '') || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS item
        FROM pg_class c
        LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE c.relnamespace = 'public'::regnamespace
        UNION ALL SELECT 'constraint:' || conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace
        UNION ALL SELECT 'trigger:' || tgname || ':' || tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal
        UNION ALL SELECT 'function:' || proname || ':' || md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
      ) items`,
    (rows) => rows[0]!.schema
  )

// What a migrated database holds, read from the first one started: its schema, the tables to empty
// (the migrations' bookkeeping aside) and the sequences to restart.
interface Migrated {
  readonly schema: string
  readonly tables: ReadonlyArray<{ readonly name: string }>
  readonly sequences: ReadonlyArray<{ readonly name: string }>
}
let migrated: Migrated | undefined

const migratedOf = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return {
    schema: yield* schemaOf(sql),
    tables: yield* sql<{ readonly name: string }>`
      SELECT relname AS name FROM pg_class
      WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND relname <> 'effect_sql_migrations'`,
    sequences: yield* sql<{ readonly name: string }>`
      SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S'`
  }
})

// Deletes every row with foreign keys and triggers off and restarts every sequence; false when the
// schema is no longer the migrated one.
const empty = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // A suite that stopped inside a transaction leaves the session in it.
  yield* sql.unsafe("ROLLBACK")
  if (migrated === undefined || (yield* schemaOf(sql)) !== migrated.schema) return false
  const { sequences, tables } = migrated
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe("SET LOCAL session_replication_role = replica")
    for (const { name } of tables) yield* sql`DELETE FROM ${sql(name)}`
    for (const { name } of sequences) yield* sql`SELECT setval(${name}::regclass, 1, false)`
  }))
  yield* sql.unsafe("DISCARD ALL")
  return true
})

const start = (snapshot: Blob) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const server = yield* Database.startEmbedded({ dataDir: undefined, snapshot }).pipe(
      Scope.provide(scope),
      Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
    )
    migrated ??= yield* migratedOf.pipe(Effect.provide(Database.layerEmbeddedClient(server)))
    return { scope, server }
  })

// Hands the database on when it empties cleanly (and in time), else closes it.
const release = (started: Started) =>
  empty.pipe(
    Effect.provide(Database.layerEmbeddedClient(started.server)),
    Effect.timeout("20 seconds"),
    Effect.orElseSucceed(() => false),
    Effect.flatMap((emptied) =>
      emptied ? Effect.sync(() => waiting.push(started)) : Scope.close(started.scope, Exit.void)
    )
  )

// The waiting databases' socket directories, removed when the process ends without closing them.
const removeWaiting = () => {
  for (const { server } of waiting.splice(0)) if ("path" in server) rmSync(dirname(server.path), { recursive: true, force: true })
}
process.once("exit", removeWaiting)
// Vitest ends its workers with SIGTERM, whose default action skips "exit" handlers: remove them first,
// then let the signal do what it would have done (end the process, unless another handler decides).
process.once("SIGTERM", () => {
  removeWaiting()
  if (process.listenerCount("SIGTERM") === 0) process.kill(process.pid, "SIGTERM")
})

/** A migrated in-memory database of its own for the layer's scope (see the module's comment). */
export const migratedMemoryDatabase = (): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> => {
  const snapshot = migratedSnapshot()
  if (snapshot === undefined) return Database.layerMemory()
  return Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(Effect.suspend(() => {
        const next = waiting.pop()
        return next === undefined ? start(snapshot) : Effect.succeed(next)
      }), release),
      ({ server }) => Database.layerEmbeddedClient(server)
    )
  )
}
