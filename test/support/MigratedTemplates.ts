/**
 * The migrated databases the test servers start from, made once per run by the global set-up: an
 * empty PGlite takes seconds to create and the migrations more, while a snapshot of a migrated one
 * loads in about half a second; on PostgreSQL, a database copied from a migrated template skips the
 * migrations. A server still runs the migrations as it starts (finding none to apply).
 *
 * Outside `npm test` (no global set-up), servers start from empty databases as before.
 */
import { Database, Migrations } from "@paygate/adapters"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { adminQuery, databaseAt } from "./PostgresAdmin.ts"

const snapshotVariable = "PAYGATE_TEST_PGLITE_SNAPSHOT"
const templateVariable = "PAYGATE_TEST_POSTGRES_TEMPLATE"

const admin = (url: string, statement: string) => Effect.runPromise(adminQuery(url, statement))

const migrate = (url: string) =>
  Effect.runPromise(Migrations.run.pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 2 })), Effect.asVoid))

/**
 * Writes the migrated PGlite snapshot to `file` and, with a PostgreSQL server at `postgresUrl`, creates
 * the migrated template database there; both named in `process.env` for the test workers. Answers the
 * clean-up (the template dropped).
 */
export const prepareMigratedTemplates = async (file: string, postgresUrl: string | undefined) => {
  const snapshot = await Effect.runPromise(Database.snapshotMemory(Migrations.run))
  writeFileSync(file, new Uint8Array(await snapshot.arrayBuffer()))
  process.env[snapshotVariable] = file
  if (postgresUrl === undefined) return async () => {}
  const template = `paygate_template_${process.pid}`
  await admin(postgresUrl, `DROP DATABASE IF EXISTS ${template}`)
  await admin(postgresUrl, `CREATE DATABASE ${template}`)
  await migrate(databaseAt(postgresUrl, template))
  process.env[templateVariable] = template
  return () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
}

let snapshot: Blob | undefined

/** The migrated PGlite snapshot of this run, read once per test file; none outside `npm test`. */
export const migratedSnapshot = (): Blob | undefined => {
  const file = process.env[snapshotVariable]
  if (file === undefined) return undefined
  snapshot ??= new Blob([readFileSync(file)])
  return snapshot
}

/** The `TEMPLATE` clause of a test database's `CREATE DATABASE`: the migrated template of this run, if any. */
export const templateClause = (): string => {
  const template = process.env[templateVariable]
  return template === undefined ? "" : ` TEMPLATE ${template}`
}
