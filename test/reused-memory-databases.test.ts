/**
 * The suites' reused in-memory databases (`test/support/ReusedMemoryDatabases.ts`): what one suite
 * leaves in its database never reaches the next, and a test process's end leaves none behind.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migratedMemoryDatabase } from "./support/ReusedMemoryDatabases.ts"
import { spawnNode } from "./support/ServiceProcess.ts"

// Runs `body` on a database of its own, released (emptied and handed on, or closed) when it ends.
const onDatabase = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    return yield* body(yield* SqlClient.SqlClient)
  }).pipe(Effect.provide(migratedMemoryDatabase()))

const transactionId = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly id: string }>`SELECT txid_current()::text AS id`, (rows) => BigInt(rows[0]!.id))

const count = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`, (rows) => rows[0]!.n)

const seedPartner = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`INSERT INTO partners (id, name, pinned_version, created_at) VALUES ('ptn_left', 'Left behind', '2025-01-01', 1)`
    yield* sql`INSERT INTO merchants (id, partner_id, mode, name, created_at, updated_at) VALUES ('mer_left', 'ptn_left', 'live', 'Left behind', 1, 1)`
  })

describe("Reused in-memory databases", () => {
  it.live("the next suite's database has none of the last one's rows, sequence values or session settings", () =>
    Effect.gen(function*() {
      const left = yield* onDatabase((sql) =>
        Effect.gen(function*() {
          yield* seedPartner(sql)
          yield* sql`SELECT nextval('audit_log_seq_seq'), nextval('audit_log_seq_seq')`
          yield* sql.unsafe("SET statement_timeout = '123s'")
          return yield* transactionId(sql)
        })
      )
      const next = yield* onDatabase((sql) =>
        Effect.gen(function*() {
          return {
            // Later than the last suite's: the same database, emptied (a new one starts at the snapshot's).
            transaction: yield* transactionId(sql),
            partners: yield* count(sql, "partners"),
            merchants: yield* count(sql, "merchants"),
            sequence: (yield* sql<{ readonly v: string }>`SELECT nextval('audit_log_seq_seq')::text AS v`)[0]!.v,
            timeout: (yield* sql<{ readonly statement_timeout: string }>`SHOW statement_timeout`)[0]!.statement_timeout,
            migrations: yield* count(sql, "effect_sql_migrations")
          }
        })
      )
      assert.isTrue(next.transaction > left)
      assert.deepStrictEqual(
        { partners: next.partners, merchants: next.merchants, sequence: next.sequence, timeout: next.timeout },
        { partners: 0, merchants: 0, sequence: "1", timeout: "0" }
      )
      assert.isAbove(next.migrations, 0)
    }), 60_000)

  it.live("a database whose schema a suite changed is closed, not handed on", () =>
    Effect.gen(function*() {
      yield* onDatabase((sql) => sql`CREATE TABLE left_behind (id int)`)
      const found = yield* onDatabase((sql) => sql<{ readonly t: string | null }>`SELECT to_regclass('left_behind')::text AS t`)
      assert.isNull(found[0]!.t)
    }), 60_000)

  it("a test process ended by SIGTERM, as vitest ends its workers, leaves no socket directory of a waiting database", async () => {
    // The holder's temporary files in a directory of this test's own, where nothing else makes any.
    const temporary = await mkdtemp(join(tmpdir(), "paygate-reused-"))
    const sockets = async () => (await readdir(temporary)).filter((name) => name.startsWith("paygate-pglite-"))
    try {
      const holder = spawnNode(["test/support/ReusedDatabaseHolder.ts"], { TMPDIR: temporary })
      const deadline = Date.now() + 60_000
      while (!holder.output().includes("released")) {
        if (Date.now() > deadline || holder.child.exitCode !== null) assert.fail(`the holder did not release its database:\n${holder.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      assert.strictEqual((await sockets()).length, 1)
      holder.child.kill("SIGTERM")
      // Ended by the signal, as without the handler.
      assert.strictEqual(await holder.exited, "SIGTERM")
      assert.deepStrictEqual(await sockets(), [])
    } finally {
      await rm(temporary, { recursive: true, force: true })
    }
  }, 90_000)

  it.live("suites open at the same time never share a database", () =>
    Effect.gen(function*() {
      const seen = yield* onDatabase((first) =>
        Effect.gen(function*() {
          yield* seedPartner(first)
          return yield* onDatabase((second) => count(second, "partners"))
        })
      )
      assert.strictEqual(seen, 0)
    }), 60_000)
})
