/**
 * Registers a block of adapter tests once per database under test, each block on its own fresh,
 * migrated database with every SQL port, `CredentialAdmin` and the `IdGenerator` provided.
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

/** The services of {@link AdapterServices} over a fresh database of kind `db`. */
export const adapterLayer = (db: DatabaseUnderTest): Layer.Layer<AdapterServices, unknown> =>
  Layer.mergeAll(SqlPersistence.layer, CredentialAdmin.layer).pipe(
    Layer.provideMerge(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(db.fresh())
  )

/** Registers `tests` under `title [database]` for every database under test. */
export const adapterSuite = (
  title: string,
  tests: (it: Vitest.MethodsNonLive<AdapterServices>, db: DatabaseUnderTest) => void
): void => {
  for (const db of databasesUnderTest) {
    layer(adapterLayer(db), { excludeTestServices: true, timeout: "120 seconds" })(`${title} [${db.name}]`, (it) => tests(it, db))
  }
}
