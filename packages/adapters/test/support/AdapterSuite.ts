/**
 * Registers a block of adapter tests once per database under test, each block on its own fresh,
 * migrated database with every SQL port, `CredentialAdmin` and the `IdGenerator` provided.
 * Migrations are applied as the block starts: none under `npm test`, whose databases start migrated,
 * unless the block asks for an empty one.
 */
import { CredentialAdmin, Migrations, SqlPersistence } from "@paygate/adapters"
import { IdGenerator } from "@paygate/domain"
import type { PgClient } from "@effect/sql-pg"
import { layer, type Vitest } from "@effect/vitest"
import { Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import { type DatabaseUnderTest, databasesUnderTest } from "./TestDatabase.ts"

/** What every adapter test can use. */
export type AdapterServices =
  | SqlPersistence.Ports
  | CredentialAdmin
  | IdGenerator
  | SqlClient.SqlClient
  | PgClient.PgClient

/** Where a block's database starts: a fresh one, or an empty one the block's migrations fill. */
export type StartFrom = "fresh" | "empty"

/** The services of {@link AdapterServices} over a new database of kind `db`. */
export const adapterLayer = (db: DatabaseUnderTest, from: StartFrom = "fresh"): Layer.Layer<AdapterServices, unknown> =>
  Layer.mergeAll(SqlPersistence.layer, CredentialAdmin.layer).pipe(
    Layer.provideMerge(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(from === "fresh" ? db.fresh() : db.empty())
  )

/** Registers `tests` under `title [database]` for every database under test. */
export const adapterSuite = (
  title: string,
  tests: (it: Vitest.MethodsNonLive<AdapterServices>, db: DatabaseUnderTest) => void,
  from: StartFrom = "fresh"
): void => {
  for (const db of databasesUnderTest) {
    layer(adapterLayer(db, from), { excludeTestServices: true, timeout: "120 seconds" })(`${title} [${db.name}]`, (it) => tests(it, db))
  }
}
