/** Helpers for tests that look at the statements an adapter sends and the leases it hands out. */
import type { IdempotencyClaim, IdempotencyLease } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { Statement } from "effect/sql"

/** A statement as sent: its SQL and parameters. */
export interface SentStatement {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

/** Runs `effect` recording every statement it sends, compiled (a transformer sees every statement before it runs). */
export const recordingStatements = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const log: Array<SentStatement> = []
    const record: Statement.Transformer = (statement) => {
      const [sql, params] = statement.compile()
      log.push({ sql, params })
      return Effect.succeed(statement)
    }
    return Effect.map(Effect.provideService(effect, Statement.CurrentTransformer, record), (value) => [value, log] as const)
  })

/** Runs `effect` recording the SQL of the statements that include `text`. */
export const loggingStatements = <A, E, R>(text: string, effect: Effect.Effect<A, E, R>) =>
  Effect.map(recordingStatements(effect), ([value, log]) => [value, log.map((s) => s.sql).filter((sql) => sql.includes(text))] as const)

/** The lease of a claim that must have been claimed. */
export const leaseOf = (claim: IdempotencyClaim): IdempotencyLease => {
  assert.strictEqual(claim._tag, "Claimed")
  return (claim as Extract<IdempotencyClaim, { _tag: "Claimed" }>).lease
}
