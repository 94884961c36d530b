/**
 * The databases the adapter suites run against: always a fresh in-memory PGlite, and a real
 * PostgreSQL when `TEST_DATABASE_URL` is set (CI sets it; see scripts/ci-postgres.sh). Without
 * the variable the PostgreSQL suites are not registered at all.
 *
 * Each suite gets its own database: a PGlite of its own (under `npm test` the run's migrated one,
 * reused emptied within a test process: `ReusedMemoryDatabases.ts`), or a new PostgreSQL database
 * created on the `TEST_DATABASE_URL` server (a copy of the run's migrated template,
 * `MigratedTemplates.ts`) and dropped when the suite ends; either spares each suite the migrations.
 * A suite that tests applying them asks for an empty one.
 */
import { Database } from "@paygate/adapters"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { templateClause } from "../../../../test/support/MigratedDatabases.ts"
import { migratedMemoryDatabase } from "../../../../test/support/ReusedMemoryDatabases.ts"

/** One database kind under test. */
export interface DatabaseUnderTest {
  readonly name: string
  /** A fresh database: migrated under `npm test` (a copy of the run's migrated one), else empty. */
  readonly fresh: () => Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown>
  /** A fresh, empty database (not migrated). */
  readonly empty: () => Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown>
  /**
   * Whether two transactions can be open at the same time. PostgreSQL: yes. The embedded PGlite
   * is one session behind a one-connection pool, so a second transaction waits for the first.
   */
  readonly concurrentTransactions: boolean
}

// Runs one statement on the server's maintenance connection (the database of `url`).
const adminRun = <A, E>(url: string, f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    return yield* f(yield* PgClient.PgClient)
  }).pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 1 })))

/**
 * The URL of a new database on the server of `url`, dropped (forcibly) when the scope closes: a copy of
 * the run's migrated template when `migrated` and there is one, else empty.
 */
export const freshPostgresUrl = (url: string, migrated = false) =>
  Effect.gen(function*() {
    const name = `paygate_t_${randomBytes(6).toString("hex")}`
    const template = migrated ? templateClause(url) : ""
    yield* Effect.acquireRelease(
      adminRun(url, (sql) => sql`CREATE DATABASE ${sql(name)}${sql.literal(template)}`),
      () => adminRun(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  })

/** A new database on the server of `url`, dropped (forcibly) when the layer's scope closes. */
const freshPostgres = (url: string, migrated: boolean): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> =>
  Layer.unwrap(Effect.map(freshPostgresUrl(url, migrated), (target) => Database.layerUrl(target, { maxConnections: 8 })))

const serverUrl = process.env.TEST_DATABASE_URL

export const databasesUnderTest: ReadonlyArray<DatabaseUnderTest> = [
  { name: "PGlite", fresh: migratedMemoryDatabase, empty: () => Database.layerMemory(), concurrentTransactions: false },
  ...(serverUrl === undefined || serverUrl === ""
    ? []
    : [{
      name: "PostgreSQL",
      fresh: () => freshPostgres(serverUrl, true),
      empty: () => freshPostgres(serverUrl, false),
      concurrentTransactions: true
    }])
]
