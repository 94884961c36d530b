import { CredentialAdmin, Database, DataDirLock, Migrations, SqlCredentialStore } from "@paygate/adapters"
import { CredentialStore, IdGenerator } from "@paygate/domain"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option, Scope } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { freshPostgresUrl } from "./support/TestDatabase.ts"
import { copyMigratedDatabase } from "../../../test/support/MigratedDataDir.ts"
import { migratedSnapshot } from "../../../test/support/MigratedDatabases.ts"
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "paygate-pglite-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

// A data directory in a temporary one, holding a copy of this run's migrated database when there is one:
// for the tests not about creating a database, which would each pay PGlite's initdb.
const migratedDataDir = Effect.flatMap(tempDir, (parent) => {
  const dir = join(parent, "pglite")
  return Effect.as(Effect.promise(() => copyMigratedDatabase(dir)), dir)
})

const refusesConnections = (at: { readonly host: string; readonly port: number } | { readonly path: string }) =>
  Effect.callback<boolean>((resume) => {
    const socket = connect(at)
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.once("error", () => resume(Effect.succeed(true)))
  })

// Credential admin and lookup over a migrated database from `database`.
const withCredentials = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Layer.mergeAll(CredentialAdmin.layer, SqlCredentialStore.layer).pipe(
    Layer.provideMerge(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(database)
  )

describe("Database (embedded PGlite)", () => {
  it.live("persists under its data directory across restarts", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir, "nested", "pglite")
      const partner = yield* Effect.gen(function*() {
        return yield* (yield* CredentialAdmin).createPartner({ name: "Durable" })
      }).pipe(Effect.provide(withCredentials(Database.layerEmbedded({ dataDir: dir }))))
      assert.isAbove((yield* Effect.promise(() => readdir(dir))).length, 0, "files were written")

      const found = yield* Effect.gen(function*() {
        assert.deepStrictEqual(yield* Migrations.run, [], "already migrated")
        return yield* (yield* CredentialStore).findPartner(partner.id)
      }).pipe(Effect.provide(withCredentials(Database.layerEmbedded({ dataDir: dir }))))
      assert.deepStrictEqual(found, Option.some(partner))
    }), 120_000)

  it.live("a memory database from a snapshot starts as the snapshot's was, each from it is its own, with a small buffer pool", () =>
    Effect.gen(function*() {
      const admin = CredentialAdmin.layer.pipe(Layer.provide(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))))
      const snapshot = yield* Database.snapshotMemory(
        Effect.gen(function*() {
          yield* Migrations.run
          return yield* (yield* CredentialAdmin).createPartner({ name: "Snapshotted" })
        }).pipe(Effect.provide(admin)),
        migratedSnapshot()
      )
      const partners = Effect.gen(function*() {
        assert.deepStrictEqual(yield* Migrations.run, [], "already migrated")
        const sql = yield* SqlClient.SqlClient
        // Its pages are in memory already: PostgreSQL's default 128 MB pool would only copy them.
        assert.strictEqual((yield* sql<{ readonly shared_buffers: string }>`SHOW shared_buffers`)[0]!.shared_buffers, "16MB")
        const names = (yield* sql<{ readonly name: string }>`SELECT name FROM partners ORDER BY name`).map((row) => row.name)
        yield* (yield* CredentialAdmin).createPartner({ name: `Only here ${names.length}` })
        return names
      })
      const first = yield* partners.pipe(Effect.provide(withCredentials(Database.layerMemory(snapshot))))
      const second = yield* partners.pipe(Effect.provide(withCredentials(Database.layerMemory(snapshot))))
      assert.deepStrictEqual(first, ["Snapshotted"])
      assert.deepStrictEqual(second, ["Snapshotted"], "the first database's partner is not in the second")
      // A snapshot taken from another carries what both put in.
      const stacked = yield* Database.snapshotMemory(
        Effect.gen(function*() {
          return yield* (yield* CredentialAdmin).createPartner({ name: "Stacked" })
        }).pipe(Effect.provide(admin)),
        snapshot
      )
      assert.deepStrictEqual(yield* partners.pipe(Effect.provide(withCredentials(Database.layerMemory(stacked)))), ["Snapshotted", "Stacked"])
    }), 120_000)

  it.live("locks its data directory: a second opener fails, a stale lock is taken over, the lock goes with the scope", () =>
    Effect.gen(function*() {
      const dir = yield* migratedDataDir
      const lock = DataDirLock.lockPathOf(dir)
      // A lock left by a process that no longer exists.
      yield* Effect.promise(() => writeFile(lock, "2147483000\n"))
      const scope = yield* Scope.make()
      const server = yield* Database.startEmbedded({ dataDir: dir }).pipe(Scope.provide(scope))
      assert.deepStrictEqual(yield* Effect.promise(() => DataDirLock.ownerOf(dir)), { pid: process.pid, port: "port" in server ? server.port : undefined })
      const second = yield* Effect.exit(Effect.scoped(Database.startEmbedded({ dataDir: dir })))
      assert.isTrue(Exit.isFailure(second))
      assert.include(String(Exit.isFailure(second) ? second.cause : ""), "is used by process")
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Effect.promise(() => stat(lock).then(() => false, () => true)), "lock removed")
      // Free again.
      yield* Effect.scoped(Database.startEmbedded({ dataDir: dir }))
    }), 60_000)

  it.live("serves a data directory on 127.0.0.1 and stops serving when its scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* Database.startEmbedded({ dataDir: yield* migratedDataDir }).pipe(Scope.provide(scope))
      assert.isTrue("port" in server && server.host === "127.0.0.1" && server.port > 0)
      assert.isFalse(yield* refusesConnections(server))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* refusesConnections(server))
    }), 60_000)

  it.live("serves a memory database on a socket in an owner-only directory, removed when its scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* Database.startEmbedded({ dataDir: undefined }).pipe(Scope.provide(scope))
      const directory = "path" in server ? dirname(server.path) : "(not a socket)"
      assert.strictEqual((yield* Effect.promise(() => stat(directory))).mode & 0o777, 0o700)
      assert.isFalse(yield* refusesConnections(server))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* refusesConnections(server))
      assert.isFalse(yield* Effect.promise(() => stat(directory).then(() => true, () => false)))
    }), 60_000)

  it.live("Database.layer uses the embedded database in PAYGATE_DATA_DIR when DATABASE_URL is unset or empty", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const version = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly v: string }>`SELECT version() AS v`
        return rows[0]!.v
      }).pipe(
        Effect.provide(Database.layer.pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATABASE_URL: "", PAYGATE_DATA_DIR: dir })))
        ))
      )
      assert.include(version, "PGlite")
      assert.isAbove((yield* Effect.promise(() => readdir(dir))).length, 0)
    }), 60_000)

  it.live("layerForOperator connects to a running service's embedded database, else opens it itself", () =>
    Effect.gen(function*() {
      const dir = yield* migratedDataDir
      const env = ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PAYGATE_DATA_DIR: dir }))
      const service = withCredentials(Database.layer.pipe(Layer.provide(env)))
      const operator = withCredentials(Database.layerForOperator.pipe(Layer.provide(env)))
      const createPartner = (name: string) =>
        Effect.gen(function*() {
          return yield* (yield* CredentialAdmin).createPartner({ name })
        })

      // While the service runs, the operator tool goes through the service's server.
      const scope = yield* Scope.make()
      const running = yield* Layer.buildWithScope(service, scope)
      const byOperator = yield* createPartner("While running").pipe(Effect.provide(operator))
      const seen = yield* Effect.gen(function*() {
        return yield* (yield* CredentialStore).findPartner(byOperator.id)
      }).pipe(Effect.provideContext(running))
      assert.deepStrictEqual(seen, Option.some(byOperator))
      yield* Scope.close(scope, Exit.void)

      // With the service stopped, the tool opens the directory itself.
      const stopped = yield* Effect.gen(function*() {
        const admin = yield* createPartner("While stopped")
        return [admin, yield* (yield* CredentialStore).findPartner(byOperator.id)] as const
      }).pipe(Effect.provide(operator))
      assert.deepStrictEqual(stopped[1], Option.some(byOperator))
    }), 120_000)

  const url = process.env.TEST_DATABASE_URL
  if (url !== undefined && url !== "") {
    it.live("Database.layer uses PostgreSQL when DATABASE_URL is set", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly v: string }>`SELECT version() AS v`
        assert.notInclude(rows[0]!.v, "PGlite")
      }).pipe(
        Effect.provide(Database.layer.pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATABASE_URL: url, PAYGATE_DATA_DIR: "/nonexistent" })))
        ))
      ), 60_000)

    // Connections the pool opened for a fresh database, after `concurrent` queries ran at once (clients
    // only: an autovacuum worker visits every database now and then).
    const connectionsAfter = (poolSize: string | undefined, concurrent: number) =>
      Effect.scoped(Effect.gen(function*() {
        const database = yield* freshPostgresUrl(url)
        const env = { DATABASE_URL: database, ...(poolSize === undefined ? {} : { DATABASE_POOL_SIZE: poolSize }) }
        return yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* Effect.forEach(Array.from({ length: concurrent }), () => sql`SELECT pg_sleep(0.2)`, { concurrency: "unbounded" })
          const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`
          return rows[0]!.n
        }).pipe(Effect.provide(Database.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))))
      }))

    it.live("Database.layer keeps at most DATABASE_POOL_SIZE connections (10 unset, never fewer than 2)", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* connectionsAfter("3", 8), 3)
        assert.strictEqual(yield* connectionsAfter(undefined, 14), 10)
        // A key's nonce sequence holds a connection while its sender records on another.
        assert.strictEqual(yield* connectionsAfter("1", 4), 2)
      }), 60_000)
  }
})
