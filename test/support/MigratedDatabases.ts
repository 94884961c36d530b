/**
 * This run's migrated databases, as the global set-up made them (`MigratedTemplates.ts`), for the
 * suites that start from one: the embedded database's snapshot and PostgreSQL's template. Outside
 * `npm test` there are none, and suites start from empty databases and migrate them.
 * A module of its own, without the adapters, so that any test support can import it.
 */
import { readFileSync } from "node:fs"

/** Names the snapshot's file to the test workers. */
export const snapshotVariable = "PAYGATE_TEST_PGLITE_SNAPSHOT"
/** Names the template database to the test workers. */
export const templateVariable = "PAYGATE_TEST_POSTGRES_TEMPLATE"

let snapshot: Blob | undefined

/** The migrated PGlite snapshot of this run, read once per test file; none outside `npm test`. */
export const migratedSnapshot = (): Blob | undefined => {
  const file = process.env[snapshotVariable]
  if (file === undefined) return undefined
  snapshot ??= new Blob([readFileSync(file)])
  return snapshot
}

/**
 * The `TEMPLATE` clause of a `CREATE DATABASE` on the server of `serverUrl`: the migrated template of
 * this run when there is one and that server is the run's (`TEST_DATABASE_URL`), else none.
 */
export const templateClause = (serverUrl: string): string => {
  const template = process.env[templateVariable]
  const runServer = process.env.TEST_DATABASE_URL
  if (template === undefined || runServer === undefined || runServer === "") return ""
  return new URL(serverUrl).host === new URL(runServer).host ? ` TEMPLATE ${template}` : ""
}
