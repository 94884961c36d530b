/**
 * The loop every worker job runs.
 *
 * @module
 */
import { Cause, Effect } from "effect"

/** Pause after a failed round (the database may be restarting). */
export const failurePauseMs = 1_000

/**
 * Runs `step` forever, pausing `idleMs` when it found nothing to do (`false`); a failure or defect
 * of one round is logged and retried after a pause; interruption ends the loop.
 */
export const forever = (name: string, step: Effect.Effect<boolean>, idleMs: number): Effect.Effect<never> =>
  Effect.gen(function*() {
    for (;;) {
      const outcome = yield* step.pipe(
        Effect.map((busy) => (busy ? "busy" as const : "idle" as const)),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(Effect.logError(`worker ${name}: round failed`, cause), "failed" as const)
        )
      )
      if (outcome === "idle") yield* Effect.sleep(idleMs)
      else if (outcome === "failed") yield* Effect.sleep(Math.max(idleMs, failurePauseMs))
    }
  }).pipe(Effect.annotateLogs({ job: name }))
