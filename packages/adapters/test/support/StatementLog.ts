/** Helpers for tests that look at the statements an adapter sends and the leases it hands out. */
import type { IdempotencyClaim, IdempotencyLease } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { Statement } from "effect/sql"

/** Runs `effect` recording the statements whose SQL includes `text` (a transformer sees every statement before it runs). */
export const loggingStatements = <A, E, R>(text: string, effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const log: Array<string> = []
    const record: Statement.Transformer = (statement) => {
      const [compiled] = statement.compile()
      if (compiled.includes(text)) log.push(compiled)
      return Effect.succeed(statement)
    }
    return Effect.map(Effect.provideService(effect, Statement.CurrentTransformer, record), (value) => [value, log] as const)
  })

/** The lease of a claim that must have been claimed. */
export const leaseOf = (claim: IdempotencyClaim): IdempotencyLease => {
  assert.strictEqual(claim._tag, "Claimed")
  return (claim as Extract<IdempotencyClaim, { _tag: "Claimed" }>).lease
}
