/**
 * Requests started together (the same scheduler turn, outside a transaction) run as one shared
 * statement: concurrent requests cost PostgreSQL one statement and one commit, and the pool one
 * connection, instead of one each.
 *
 * Nothing is weakened: a statement is atomic. When the shared statement fails (a unique index, a
 * lost lease, anything), it wrote nothing, and each of its requests runs again alone, getting its
 * own outcome. A request the shared statement leaves undecided runs alone too. Inside a
 * transaction a request runs alone, on the transaction's connection (a failed statement would
 * abort the transaction).
 *
 * @module
 */
import { Effect, Exit, Option, type Request, RequestResolver } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/** How requests of type `A` run: alone, or together as one statement. */
export interface Shared<A extends Request.Request<any, any, never>> {
  /** One request on its own statement (the only way inside a transaction). */
  readonly alone: (request: A) => Effect.Effect<Request.Success<A>, Request.Error<A>>
  /**
   * Several requests as one statement: each request's result, or `undefined` for one the
   * statement did not decide (it then runs alone).
   */
  readonly together: (requests: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<Exit.Exit<Request.Success<A>, Request.Error<A>> | undefined>, SqlError.SqlError>
  /** Requests per shared statement at most. */
  readonly max: number
}

/** Runs each request through `shared`: together with the requests started with it, or alone in a transaction. */
export const make = <A extends Request.Request<any, any, never>>(sql: SqlClient.SqlClient, shared: Shared<A>) => {
  const runAlone = (entry: Request.Entry<A>) => Effect.map(Effect.exit(shared.alone(entry.request)), (exit) => entry.completeUnsafe(exit))
  const resolver = RequestResolver.make<A>((entries) => {
    if (entries.length === 1) return runAlone(entries[0])
    return Effect.matchCauseEffect(shared.together(entries.map((entry) => entry.request)), {
      onSuccess: (exits) =>
        Effect.forEach(entries, (entry, i) => {
          const exit = exits[i]
          return exit === undefined ? runAlone(entry) : Effect.sync(() => entry.completeUnsafe(exit))
        }, { concurrency: "unbounded", discard: true }),
      // The shared statement wrote nothing: each request runs again alone, for its own outcome.
      onFailure: () => Effect.forEach(entries, runAlone, { concurrency: "unbounded", discard: true })
    })
  }).pipe(RequestResolver.batchN(shared.max))
  return (request: A): Effect.Effect<Request.Success<A>, Request.Error<A>> =>
    Effect.flatMap(
      Effect.serviceOption(sql.transactionService),
      // `A` needs no services; `Request.Services<A>` is conditional, so the compiler cannot see it is `never`.
      (transaction) =>
        Option.isSome(transaction)
          ? shared.alone(request)
          : Effect.request(request, resolver) as Effect.Effect<Request.Success<A>, Request.Error<A>>
    )
}
