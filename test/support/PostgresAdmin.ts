/** Reaching the databases of a test PostgreSQL server: their URLs, and statements run on the server itself. */
import { Database } from "@paygate/adapters"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The URL of database `name` on the PostgreSQL server at `url`. */
export const databaseAt = (url: string, name: string) => {
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}

/** Runs `statement` (e.g. `CREATE DATABASE`) over one connection to `url`. */
export const adminQuery = (url: string, statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 1 })))
