/**
 * The first start's sandbox (`app/Bootstrap.ts`) when several processes start together on one
 * empty PostgreSQL database: exactly one of them creates it and shows its secrets; the others find
 * that same sandbox. Each "process" here is a runtime with its own connection pool, so the starts
 * race on the database as separate processes do.
 */
import { CredentialAdmin, Database, Migrations, SqlPersistence } from "@paygate/adapters"
import { IdGenerator, Merchants } from "@paygate/domain"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { bootstrapSandbox } from "../app/Bootstrap.ts"
import { makePostgresWorld, type PostgresWorld } from "./support/PostgresWorld.ts"

const serverUrl = process.env.TEST_DATABASE_URL

const startOver = (url: string) =>
  Layer.mergeAll(CredentialAdmin.layer, Merchants.layer).pipe(
    Layer.provideMerge(SqlPersistence.layer),
    Layer.provideMerge(IdGenerator.layer),
    Layer.provideMerge(SecureRandom.layerWebCrypto),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(Database.layerUrl(url, { maxConnections: 2 }))
  )

describe.runIf(serverUrl !== undefined && serverUrl !== "")("The first start's sandbox, several processes at once", () => {
  const worlds: Array<PostgresWorld> = []
  afterAll(async () => {
    await Promise.all(worlds.map((w) => w.close()))
  })

  it("is created once: one start shows its secrets, every start finds the same sandbox", async () => {
    for (let round = 0; round < 3; round++) {
      const world = await makePostgresWorld(serverUrl!)
      worlds.push(world)
      const starts = Array.from({ length: 4 }, () => ManagedRuntime.make(startOver(world.url)))
      try {
        // Pools and migrations first, so that the four bootstraps begin together.
        await Promise.all(starts.map((runtime) => runtime.runPromise(Effect.void)))
        const sandboxes = await Promise.all(starts.map((runtime) => runtime.runPromise(bootstrapSandbox)))
        const counts = await starts[0]!.runPromise(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ readonly partners: number; readonly merchants: number; readonly apps: number }>`
            SELECT (SELECT count(*)::int FROM partners) AS partners, (SELECT count(*)::int FROM merchants) AS merchants,
              (SELECT count(*)::int FROM apps) AS apps`
        }))
        expect(counts[0], `round ${round}`).toEqual({ partners: 1, merchants: 1, apps: 1 })
        expect(sandboxes.filter((s) => Option.isSome(s) && Option.isSome(s.value.secrets))).toHaveLength(1)
        const ids = sandboxes.map((s) => Option.getOrThrow(s).ids)
        expect(new Set(ids.map((x) => JSON.stringify(x))).size).toBe(1)
      } finally {
        await Promise.all(starts.map((runtime) => runtime.dispose()))
      }
    }
  })
})
