/**
 * Requests started together (the same scheduler turn, outside a transaction) run as one shared
 * statement: concurrent requests cost PostgreSQL one statement and one commit, and the pool one
 * connection, instead of one each.
 *
 * Nothing is weakened: a statement is atomic. When the shared statement fails (a unique index, a
 * lost lease, anything), it wrote nothing, and each of its requests runs again alone, getting its
 * own outcome. A request the shared statement leaves undecided runs alone too. Inside a
 * transaction a request runs alone, on the transaction's connection (a failed statement would
 * abort the transaction). A request interrupted before its batch runs is left out of it, and one
 * interrupted while it runs does not run again alone.
 *
 * Why not effect's `RequestResolver`: it reuses its batch objects and empties their `Set`s with
 * `clear()`. V8 leaves a cleared `Set`'s old table, entries and all, pointing at its new one (for
 * iterators). Once one such table is in the old generation (any full collection puts the live one
 * there), young collections keep every later table alive through that chain, with the requests
 * their entries hold (each with its fiber's whole context: the HTTP request, its parser, its
 * response), until the next full collection, so young collections promote far more and pause
 * longer. Here a batch is a fresh array that nothing refers to once it has run.
 *
 * @module
 */
import { type Context, Effect, Exit, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/** How requests with input `A` run: alone, or together as one statement. */
export interface Shared<A, B, E> {
  /** One request on its own statement (the only way inside a transaction). */
  readonly alone: (input: A) => Effect.Effect<B, E>
  /**
   * Several requests as one statement: each request's result, or `undefined` for one the
   * statement did not decide (it then runs alone).
   */
  readonly together: (inputs: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<Exit.Exit<B, E> | undefined>, SqlError.SqlError>
  /** Requests per shared statement at most. */
  readonly max: number
}

/** A request waiting in a batch; `resume` is cleared when its caller is interrupted before the batch ran. */
interface Waiting<A, B, E> {
  readonly input: A
  resume: ((exit: Exit.Exit<B, E>) => void) | undefined
}

interface Batch<A, B, E> {
  readonly waiting: Array<Waiting<A, B, E>>
  /** The context of the request that opened the batch: the batch runs in it. */
  readonly context: Context.Context<never>
}

/** Runs each request through `shared`: together with the requests started with it, or alone in a transaction. */
export const make = <A, B, E>(sql: SqlClient.SqlClient, shared: Shared<A, B, E>) => {
  const complete = (waiting: Waiting<A, B, E>, exit: Exit.Exit<B, E>) => {
    const resume = waiting.resume
    waiting.resume = undefined
    resume?.(exit)
  }
  // A request whose caller is gone does not run again alone: nobody would get its outcome.
  const runAlone = (waiting: Waiting<A, B, E>) =>
    waiting.resume === undefined ? Effect.void : Effect.map(Effect.exit(shared.alone(waiting.input)), (exit) => complete(waiting, exit))
  const run = (batch: ReadonlyArray<Waiting<A, B, E>>) => {
    const waiting = batch.filter((entry) => entry.resume !== undefined)
    if (waiting.length <= 1) return waiting.length === 0 ? Effect.void : runAlone(waiting[0]!)
    return Effect.matchCauseEffect(shared.together(waiting.map((entry) => entry.input)), {
      onSuccess: (exits) =>
        Effect.forEach(waiting, (entry, i) => {
          const exit = exits[i]
          return exit === undefined ? runAlone(entry) : Effect.sync(() => complete(entry, exit))
        }, { concurrency: "unbounded", discard: true }),
      // The shared statement wrote nothing: each request runs again alone, for its own outcome.
      onFailure: () => Effect.forEach(waiting, runAlone, { concurrency: "unbounded", discard: true })
    })
  }

  // The batch requests join until it runs: at the end of the scheduler turn it was opened in, or once
  // full, whichever comes first (a batch no longer open has run).
  let open: Batch<A, B, E> | undefined
  const dispatch = (batch: Batch<A, B, E>) => {
    if (open !== batch) return
    open = undefined
    Effect.runForkWith(batch.context)(run(batch.waiting))
  }

  const together = (input: A) =>
    Effect.withFiber<B, E>((fiber) =>
      Effect.callback<B, E>((resume) => {
        const waiting: Waiting<A, B, E> = { input, resume }
        let batch = open
        if (batch === undefined) {
          batch = open = { waiting: [], context: fiber.context }
          const opened = batch
          // Priority 0, as `Effect.yieldNow`: after the fibers already scheduled in this turn.
          fiber.currentDispatcher.scheduleTask(() => dispatch(opened), 0)
        }
        batch.waiting.push(waiting)
        if (batch.waiting.length >= shared.max) dispatch(batch)
        return Effect.sync(() => {
          waiting.resume = undefined
        })
      })
    )

  return (input: A): Effect.Effect<B, E> =>
    Effect.flatMap(
      Effect.serviceOption(sql.transactionService),
      (transaction) => Option.isSome(transaction) ? shared.alone(input) : together(input)
    )
}
