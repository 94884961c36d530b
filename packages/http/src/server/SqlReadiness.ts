import { Migrations } from "@paygate/adapters"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Readiness } from "./Readiness.ts"

/** Ready when the database answers and every migration the code knows is applied. */
export const SqlReadiness = Layer.effect(
  Readiness,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const expected = Object.keys(Migrations.migrations).length
    return Readiness.of({
      check: sql<{ readonly applied: string | number }>`SELECT count(*) AS applied FROM ${sql(Migrations.migrationsTable)}`.pipe(
        Effect.timeout("2 seconds"),
        Effect.mapError(() => "the database does not answer"),
        Effect.flatMap((rows) => {
          const applied = Number(rows[0]?.applied ?? 0)
          return applied >= expected
            ? Effect.succeed(applied)
            : Effect.fail(`${applied} of ${expected} migrations applied`)
        })
      )
    })
  })
)
