/**
 * The databases the adapter suites run against: always a fresh in-memory PGlite, and a real
 * PostgreSQL when `TEST_DATABASE_URL` is set (CI sets it; see scripts/ci-postgres.sh). Without
 * the variable the PostgreSQL suites are not registered at all.
 *
 * Each suite gets its own empty database: a new PGlite, or a new PostgreSQL database created on
 * the `TEST_DATABASE_URL` server and dropped when the suite ends.
 */
import { Database } from "@paygate/adapters"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"

/** One database kind under test. */
export interface DatabaseUnderTest {
  readonly name: string
  /** A fresh, empty database (not migrated). */
  readonly fresh: () => Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown>
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

/** The URL of a new database on the server of `url`, dropped (forcibly) when the scope closes. */
export const freshPostgresUrl = (url: string) =>
  Effect.gen(function*() {
    const name = `paygate_t_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      adminRun(url, (sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => adminRun(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).pipe(Effect.orDie)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  })

/** A new database on the server of `url`, dropped (forcibly) when the layer's scope closes. */
const freshPostgres = (url: string): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> =>
  Layer.unwrap(Effect.map(freshPostgresUrl(url), (target) => Database.layerUrl(target, { maxConnections: 8 })))

export const databasesUnderTest: ReadonlyArray<DatabaseUnderTest> = [
  { name: "PGlite", fresh: Database.layerMemory, concurrentTransactions: false },
  ...(process.env.TEST_DATABASE_URL === undefined || process.env.TEST_DATABASE_URL === ""
    ? []
    : [{ name: "PostgreSQL", fresh: () => freshPostgres(process.env.TEST_DATABASE_URL!), concurrentTransactions: true }])
]
