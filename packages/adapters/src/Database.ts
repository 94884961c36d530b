/**
 * The database connection: PostgreSQL 15+ when `DATABASE_URL` is set, otherwise an embedded PGlite
 * (real PostgreSQL compiled to WASM) persisted under `PAYGATE_DATA_DIR` (default `./data/pglite`).
 *
 * Every layer here provides `PgClient` and `SqlClient` (both from `@effect/sql-pg`, which speaks
 * the wire protocol itself) and closes its connections, and for the embedded database also the
 * socket server and the database, when the layer's scope closes. Migrations are separate
 * (see `Migrations.ts`).
 *
 * @module
 */
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DataDirLock from "./DataDirLock.ts"
import { exclusiveSequences } from "./ExclusiveSequences.ts"
import * as Configuration from "./Configuration.ts"
import * as PrivateFiles from "./PrivateFiles.ts"
import * as SqlNonceSequences from "./SqlNonceSequences.ts"

/** Default directory of the embedded database when `PAYGATE_DATA_DIR` is unset. */
export const defaultDataDir = Configuration.defaultDataDir

/**
 * Connections the service's pool keeps to the embedded database: exactly one.
 *
 * PGlite is one single-threaded PostgreSQL session: more connections add no throughput, and
 * pglite-socket lets only one client work while a transaction (or, with
 * `exclusiveSequences`, an extended-query sequence) is open. With one pooled connection,
 * statements queue in the pool (visible, interruptible) instead of in the server. A consequence:
 * code must never wait, inside a transaction, for a query outside it (it would wait forever).
 * Tests that need two open transactions at once run on PostgreSQL only.
 */
export const embeddedPoolSize = 1

/**
 * Connections the embedded socket server accepts: the service's pool, an operator tool (see
 * {@link layerForOperator}) and slack for a replacement connection accepted while the server still
 * counts the one it replaces (pglite-socket frees a slot asynchronously after a socket closes).
 * Clients never see each other's half-done work: see `ExclusiveSequences.ts`.
 */
export const embeddedServerConnections = 4

/** Starting or stopping the embedded database failed. */
export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()("EmbeddedDatabaseError", {
  message: Schema.String,
  cause: Schema.Defect()
}) {}

/**
 * Where the embedded server listens: a data directory's on 127.0.0.1 (its port is published for
 * operator tools, see `DataDirLock.ts`); an in-memory database's on a unix socket in a private
 * directory of its own, which costs less CPU per statement than loopback TCP.
 */
export type EmbeddedServer =
  | { readonly host: string; readonly port: number }
  | { readonly path: string }

// The in-memory database's buffer pool (see `openEmbedded`).
const memoryBufferPool = "16MB"

/** Options of {@link layerEmbedded}. */
export interface EmbeddedOptions {
  /** Directory the database persists in; `undefined` keeps it in memory (gone when the scope closes). */
  readonly dataDir: string | undefined
  /** In memory only: a snapshot to start from ({@link snapshotMemory}) instead of an empty database. */
  readonly snapshot?: Blob | undefined
}

/**
 * Starts PGlite and serves it with pglite-socket (where: {@link EmbeddedServer}; on 127.0.0.1, a
 * port the OS picks); stops the server and closes the database when the scope closes. A data
 * directory is locked while open (see `DataDirLock.ts`): a second opener, in this process or
 * another, fails. The directory and everything in it are made owner-only (`PrivateFiles.ts`) when
 * it opens, once PGlite has unpacked its files, and when it closes.
 *
 * The server has no authentication: any local process that finds the port can connect, as with a
 * PostgreSQL configured for local trust (an in-memory database's socket: only the same user). Use
 * `DATABASE_URL` on shared machines.
 */
export const startEmbedded = (options: EmbeddedOptions) => Effect.map(openEmbedded(options), ({ address }) => address)

// The embedded database and its server, for the scope.
const openEmbedded = (options: EmbeddedOptions) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        let lock: DataDirLock.DataDirLock | undefined
        if (options.dataDir !== undefined) {
          await PrivateFiles.makePrivateDirectory(options.dataDir)
          lock = await DataDirLock.acquireDataDirLock(options.dataDir)
          // Closed to others at once; each file in it is restricted once PGlite has opened them.
          await PrivateFiles.restrictDirectory(options.dataDir)
        }
        let db: PGlite | undefined
        let socketDir: string | undefined
        try {
          // Loaded here, not at import: a process on PostgreSQL never needs them.
          const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
            import("@electric-sql/pglite"),
            import("@electric-sql/pglite-socket")
          ])
          db = options.dataDir !== undefined
            ? await PGlite.create(options.dataDir)
            : await PGlite.create({
              // In memory, every page already sits in memory: PostgreSQL's default 128 MB buffer pool
              // would only copy them, and zeroing it is a large part of a start's CPU.
              startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${memoryBufferPool}`],
              ...(options.snapshot === undefined ? {} : { loadDataDir: options.snapshot })
            })
          if (options.dataDir !== undefined) PrivateFiles.restrictTree(options.dataDir)
          socketDir = options.dataDir === undefined ? await mkdtemp(join(tmpdir(), "paygate-pglite-")) : undefined
          const socket = socketDir === undefined ? undefined : { path: join(socketDir, ".s.PGSQL") }
          const server = new PGLiteSocketServer({
            db: exclusiveSequences(db),
            ...(socket ?? { host: "127.0.0.1", port: 0 }),
            maxConnections: embeddedServerConnections
          })
          await server.start()
          const address: EmbeddedServer = socket ?? { host: "127.0.0.1", port: Number(server.getServerConn().split(":").at(-1)) }
          if ("port" in address) await lock?.publishPort(address.port)
          return { db, server, lock, socketDir, address }
        } catch (error) {
          if (db !== undefined && !db.closed) await db.close()
          if (socketDir !== undefined) await rm(socketDir, { recursive: true, force: true })
          await lock?.release()
          throw error
        }
      },
      catch: (cause) =>
        new EmbeddedDatabaseError({
          message: cause instanceof DataDirLock.DataDirInUse
            ? cause.message
            : `Could not start the embedded database${options.dataDir === undefined ? "" : ` in ${options.dataDir}`}.`,
          cause
        })
    }),
    ({ db, lock, server, socketDir }) =>
      Effect.promise(async () => {
        try {
          await server.stop()
          if (!db.closed) await db.close()
          if (options.dataDir !== undefined) PrivateFiles.restrictTree(options.dataDir)
        } finally {
          if (socketDir !== undefined) await rm(socketDir, { recursive: true, force: true })
          await lock?.release()
        }
      })
  )

/**
 * A client for the embedded database (see {@link startEmbedded}), with one pooled connection
 * ({@link embeddedPoolSize}) and `ssl: false` (pglite-socket refuses SSL; with SSL negotiation
 * the socket closes during start-up). The pool closes before the server stops.
 */
export const layerEmbedded = (options: EmbeddedOptions): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, EmbeddedDatabaseError | SqlError> =>
  PgClient.layerFrom(Effect.flatMap(startEmbedded(options), embeddedClient))

/**
 * A client for an embedded server that is already running (see {@link startEmbedded}), with the
 * same one-connection pool as {@link layerEmbedded}; the server outlives the client's scope.
 */
export const layerEmbeddedClient = (server: EmbeddedServer): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  PgClient.layerFrom(embeddedClient(server))

const embeddedClient = (server: EmbeddedServer) =>
  PgClient.make({ ...server, ssl: false, username: "postgres", database: "postgres", maxConnections: embeddedPoolSize, minConnections: 1 })

/**
 * A fresh in-memory embedded database for tests: nothing on disk, gone when the layer's scope
 * closes. Each call is a distinct layer, so two test suites never share a database. From a
 * `snapshot` ({@link snapshotMemory}), it starts as the snapshot's database was.
 */
export const layerMemory = (snapshot?: Blob): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, EmbeddedDatabaseError | SqlError> =>
  layerEmbedded({ dataDir: undefined, snapshot })

/**
 * A fresh in-memory embedded database (or one started `from` a snapshot) once `prepare` ran on it,
 * as a snapshot (PGlite's data directory, uncompressed) that {@link layerMemory} starts from in a
 * fraction of the time an empty database takes to create: tests start each server from one
 * migrated snapshot.
 */
export const snapshotMemory = <E, R>(
  prepare: Effect.Effect<unknown, E, R>,
  from?: Blob
): Effect.Effect<Blob, E | EmbeddedDatabaseError | SqlError, Exclude<R, PgClient.PgClient | SqlClient.SqlClient>> =>
  Effect.scoped(Effect.gen(function*() {
    const { address, db } = yield* openEmbedded({ dataDir: undefined, snapshot: from })
    // The client's connection ends with `prepare`, before the dump.
    yield* Effect.provide(prepare, PgClient.layerFrom(embeddedClient(address)))
    return yield* Effect.promise(() => db.dumpDataDir("none"))
  }))

/** Options of {@link layerUrl}. */
export interface UrlOptions {
  /** Pool size; defaults to 10. */
  readonly maxConnections?: number | undefined
}

/**
 * A client for the PostgreSQL (15+) server at `url` (`postgres://user:password@host:port/db`). With
 * a pool of two connections or more, signing accounts' nonce sequences live in it too
 * (`SqlNonceSequences`): every process sending from a key shares one. A one-connection pool (an
 * operator tool) keeps them in the process.
 */
export const layerUrl = (
  url: Redacted.Redacted<string> | string,
  options: UrlOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> => {
  const maxConnections = options.maxConnections ?? 10
  const client = PgClient.layer({ url: typeof url === "string" ? Redacted.make(url) : url, maxConnections })
  return maxConnections >= 2 ? Layer.provideMerge(SqlNonceSequences.layer, client) : client
}

const databaseUrl = Configuration.databaseUrl
const dataDirConfig = Configuration.dataDir

/**
 * The database from the environment: `DATABASE_URL` (PostgreSQL, `DATABASE_POOL_SIZE` connections) if
 * set and non-empty, else the embedded PGlite under `PAYGATE_DATA_DIR` (default {@link defaultDataDir}). The embedded
 * directory can be open in one process at a time.
 */
export const layer: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient,
  Config.ConfigError | EmbeddedDatabaseError | SqlError
> = Layer.unwrap(
  Effect.gen(function*() {
    const url = yield* databaseUrl
    if (Option.isSome(url)) {
      const maxConnections = yield* Configuration.databasePoolSize
      yield* Effect.logInfo(`Database: PostgreSQL from DATABASE_URL, a pool of up to ${maxConnections} connections`)
      return layerUrl(url.value, { maxConnections })
    }
    const dataDir = yield* dataDirConfig
    yield* Effect.logInfo(`Database: embedded PGlite in ${dataDir}`)
    return layerEmbedded({ dataDir })
  })
)

/**
 * The same database as {@link layer}, for short-lived operator tools (the admin CLI) that may run
 * while the service does: with `DATABASE_URL`, PostgreSQL; else, when a live process holds the
 * embedded directory and serves it, a one-connection client to that server; else the embedded
 * directory opened directly (then the service cannot start until the tool is done).
 */
export const layerForOperator: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient,
  Config.ConfigError | EmbeddedDatabaseError | SqlError
> = Layer.unwrap(
  Effect.gen(function*() {
    const url = yield* databaseUrl
    if (Option.isSome(url)) return layerUrl(url.value, { maxConnections: 1 })
    const dataDir = yield* dataDirConfig
    const owner = yield* Effect.promise(() => DataDirLock.ownerOf(dataDir))
    if (owner?.port !== undefined) {
      return PgClient.layer({
        host: "127.0.0.1",
        port: owner.port,
        ssl: false,
        username: "postgres",
        database: "postgres",
        maxConnections: 1
      })
    }
    return layerEmbedded({ dataDir })
  })
)

/**
 * The database of a worker process of its own: `DATABASE_URL` (PostgreSQL), else the embedded
 * PGlite of `PAYGATE_DATA_DIR`, through the running service's socket when it runs (the embedded
 * directory has one owner), else opened here ({@link layerForOperator}).
 */
export const layerForWorker = Layer.unwrap(
  Effect.map(Configuration.databaseUrl, (url) => (Option.isSome(url) ? layer : layerForOperator))
)
