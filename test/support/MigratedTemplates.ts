/**
 * The migrated databases the test servers start from, made once per run by the global set-up: an
 * empty PGlite takes seconds to create and the migrations more, while a snapshot of a migrated one
 * loads in about half a second; on PostgreSQL, a database copied from a migrated template skips the
 * migrations. A server still runs the migrations as it starts (finding none to apply).
 *
 * For the services the tests start as processes (`npm start` on an embedded database), a migrated
 * snapshot is also kept as a data directory, which a test copies to its own before the start
 * (`MigratedDataDir.ts`).
 *
 * Outside `npm test` (no global set-up), servers start from empty databases as before. Tests find
 * what this made through `MigratedDatabases.ts`.
 */
import { Database, Migrations } from "@paygate/adapters"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { migratedDataDirVariable } from "./MigratedDataDir.ts"
import { snapshotVariable, templateVariable } from "./MigratedDatabases.ts"
import { adminQuery, databaseAt } from "./PostgresAdmin.ts"

const admin = (url: string, statement: string) => Effect.runPromise(adminQuery(url, statement))

const migrate = (url: string) =>
  Effect.runPromise(Migrations.run.pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 2 })), Effect.asVoid))

/**
 * Drops PostgreSQL's template databases: a third of the snapshot that every start unpacks, and an
 * in-memory test database never creates another database. The data directory keeps them, as the
 * service's own has them.
 */
const dropTemplates = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const name of ["template0", "template1"]) {
    yield* sql.unsafe(`ALTER DATABASE ${name} IS_TEMPLATE false`)
    yield* sql.unsafe(`DROP DATABASE ${name}`)
  }
})

/**
 * The snapshot unpacked as a data directory (PGlite's dump is a tar of its data directory), then
 * opened and closed once as the service opens its database: it is left shut down cleanly and
 * owner-only, as a service leaves a directory it created and migrated.
 */
const unpack = async (snapshotFile: string, dataDir: string) => {
  mkdirSync(dataDir, { mode: 0o700 })
  // stderr kept for the error only: GNU tar says on success that it strips the members' leading "/".
  execFileSync("tar", ["-xf", snapshotFile, "-C", dataDir], { stdio: ["ignore", "ignore", "pipe"] })
  await Effect.runPromise(Migrations.run.pipe(Effect.provide(Database.layerEmbedded({ dataDir })), Effect.asVoid))
}

/**
 * Unpacks a migrated PGlite snapshot as the data directory `files.dataDir` (not there yet), writes
 * one without the template databases to `files.snapshot` and, with a PostgreSQL server at
 * `postgresUrl`, creates the migrated template database there; all named in `process.env` for the
 * test workers. Answers the clean-up (the template dropped); the files are the caller's to remove.
 */
export const prepareMigratedTemplates = async (files: { readonly snapshot: string; readonly dataDir: string }, postgresUrl: string | undefined) => {
  const whole = await Effect.runPromise(Database.snapshotMemory(Migrations.run))
  writeFileSync(files.snapshot, new Uint8Array(await whole.arrayBuffer()))
  await unpack(files.snapshot, files.dataDir)
  process.env[migratedDataDirVariable] = files.dataDir
  const snapshot = await Effect.runPromise(Database.snapshotMemory(dropTemplates, whole))
  writeFileSync(files.snapshot, new Uint8Array(await snapshot.arrayBuffer()))
  process.env[snapshotVariable] = files.snapshot
  if (postgresUrl === undefined) return async () => {}
  const template = `paygate_template_${process.pid}`
  await admin(postgresUrl, `DROP DATABASE IF EXISTS ${template}`)
  await admin(postgresUrl, `CREATE DATABASE ${template}`)
  await migrate(databaseAt(postgresUrl, template))
  process.env[templateVariable] = template
  return () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
}
