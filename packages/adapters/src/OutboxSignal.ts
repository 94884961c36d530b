/**
 * Wakes the outbox's dispatcher when events are appended, so that it fans them out at once and
 * polls only rarely. Two sources:
 *
 * - **this process**: every writer of outbox events signals once its transaction has committed
 *   ({@link afterCommit}); on the embedded database, which only this process writes, that is all.
 * - **other processes** (PostgreSQL): the `outbox_events` trigger notifies channel
 *   {@link channel} at commit; a process whose dispatcher waits listens on a connection of its own
 *   ({@link listenOn}, provided as {@link OutboxListener} by `Database.layerUrl`).
 *
 * A signal is a hint, never the record: a lost one (a listener reconnecting) only delays the events
 * until the dispatcher's next poll. Signals are process-wide, so two services in one process wake
 * each other's dispatchers for nothing, which costs one claim.
 *
 * @module
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Queue, type Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import type { SqlClient } from "effect/sql"

/** The channel the migration's trigger notifies. */
export const channel = "paygate_outbox"

let generation = 0
const waiters = new Set<() => void>()

/** Counts a signal and wakes every waiter. */
const signal = () => {
  generation++
  for (const wake of waiters) wake()
  waiters.clear()
}

/** The signals counted so far: what a claim saw when it began. */
export const seen = (): number => generation

/** Waits until a signal after `since` ({@link seen}), or `timeoutMillis` at most. */
export const awaitAfter = (since: number, timeoutMillis: number): Effect.Effect<void> =>
  Effect.suspend(() =>
    generation !== since
      ? Effect.void
      : Effect.callback<void>((resume) => {
        const wake = () => resume(Effect.void)
        waiters.add(wake)
        return Effect.sync(() => waiters.delete(wake))
      }).pipe(Effect.timeoutOption(timeoutMillis), Effect.asVoid)
  )

/** Signals once the transaction around the caller commits (at once outside a transaction). */
export const afterCommit = (sql: SqlClient.SqlClient): Effect.Effect<void> => sql.afterCommit(Effect.sync(signal))

/** Hears the events other processes append, signalling each time, for as long as it runs; none by default. */
export const OutboxListener = Context.Reference<Effect.Effect<never> | undefined>("@paygate/adapters/OutboxListener", {
  defaultValue: () => undefined
})

/** Pause before listening again after the connection failed. */
const relistenMillis = 1_000

/**
 * Listens on {@link channel} of the PostgreSQL at `url` with one connection of its own (the pool's
 * stay for queries), reconnecting after a failure. Signals once each time it starts listening:
 * events appended while it was not are then claimed too.
 */
export const listenOn = (url: Redacted.Redacted<string>): Effect.Effect<never> => {
  // Warned once per outage: set again once a session listens.
  let warned = false
  const session = Effect.gen(function*() {
    const client = yield* PgClient.make({ url, maxConnections: 1 })
    const notifications = yield* client.listen(channel)
    warned = false
    signal()
    for (;;) {
      yield* Queue.takeAll(notifications)
      signal()
    }
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
  return Effect.gen(function*() {
    for (;;) {
      const exit = yield* Effect.exit(session)
      if (!warned && exit._tag === "Failure") {
        warned = true
        yield* Effect.logWarning(`outbox: not listening for other processes' events (${channel}); polling until it can again`, exit.cause)
      }
      yield* Effect.sleep(relistenMillis)
    }
  })
}
