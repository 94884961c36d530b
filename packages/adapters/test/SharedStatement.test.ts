import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as SharedStatement from "../src/internal/SharedStatement.ts"

// SharedStatement reads only the client's transaction key: no database is needed to run it.
const Transaction = SqlClient.TransactionConnection(-1)
const sql = { transactionService: Transaction } as unknown as SqlClient.SqlClient

/** A shared statement over numbers that records its statements: doubles each input; `undecided` ones are left to run alone. */
const recording = (options: { readonly max?: number; readonly fails?: boolean; readonly undecided?: ReadonlySet<number> } = {}) => {
  const statements: Array<ReadonlyArray<number> | number> = []
  const run = SharedStatement.make<number, number, string>(sql, {
    alone: (input) =>
      Effect.sync(() => {
        statements.push(input)
        return input * 2
      }),
    together: (inputs) =>
      Effect.suspend(() => {
        statements.push(inputs)
        return options.fails === true
          ? Effect.fail(new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: "shared statement failed" }) }))
          : Effect.succeed(inputs.map((input) => (options.undecided?.has(input) ? undefined : Exit.succeed(input * 2))))
      }),
    max: options.max ?? 10
  })
  return { run, statements }
}

describe("SharedStatement", () => {
  it.effect("requests started together run as one statement, each with its own result", () =>
    Effect.gen(function*() {
      const { run, statements } = recording()
      const results = yield* Effect.all([run(1), run(2), run(3)], { concurrency: "unbounded" })
      assert.deepStrictEqual(results, [2, 4, 6])
      assert.deepStrictEqual(statements, [[1, 2, 3]])
    }))

  it.effect("a batch runs once it is full; what is left runs in the next", () =>
    Effect.gen(function*() {
      const { run, statements } = recording({ max: 2 })
      const results = yield* Effect.all([1, 2, 3, 4, 5].map(run), { concurrency: "unbounded" })
      assert.deepStrictEqual(results, [2, 4, 6, 8, 10])
      // The last one is alone in its batch: it runs on its own statement.
      assert.deepStrictEqual(statements, [[1, 2], [3, 4], 5])
    }))

  it.effect("requests started in different turns run apart", () =>
    Effect.gen(function*() {
      const { run, statements } = recording()
      assert.strictEqual(yield* run(1), 2)
      assert.strictEqual(yield* run(2), 4)
      assert.deepStrictEqual(statements, [1, 2])
    }))

  it.effect("when the shared statement fails, each request runs again alone", () =>
    Effect.gen(function*() {
      const { run, statements } = recording({ fails: true })
      const results = yield* Effect.all([run(1), run(2)], { concurrency: "unbounded" })
      assert.deepStrictEqual(results, [2, 4])
      assert.deepStrictEqual(statements, [[1, 2], 1, 2])
    }))

  it.effect("a request the shared statement leaves undecided runs alone", () =>
    Effect.gen(function*() {
      const { run, statements } = recording({ undecided: new Set([2]) })
      const results = yield* Effect.all([run(1), run(2), run(3)], { concurrency: "unbounded" })
      assert.deepStrictEqual(results, [2, 4, 6])
      assert.deepStrictEqual(statements, [[1, 2, 3], 2])
    }))

  it.effect("a request interrupted before its batch runs is left out of it", () =>
    Effect.gen(function*() {
      const { run, statements } = recording()
      const kept = yield* Effect.forkChild(run(1), { startImmediately: true })
      const dropped = yield* Effect.forkChild(run(2), { startImmediately: true })
      const other = yield* Effect.forkChild(run(3), { startImmediately: true })
      yield* Fiber.interrupt(dropped)
      assert.deepStrictEqual(yield* Fiber.join(kept), 2)
      assert.deepStrictEqual(yield* Fiber.join(other), 6)
      assert.deepStrictEqual(statements, [[1, 3]])
    }))

  it.effect("a request interrupted while its shared statement runs does not run again alone when it fails", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const statements: Array<ReadonlyArray<number> | number> = []
      const run = SharedStatement.make<number, number, string>(sql, {
        alone: (input) => Effect.sync(() => (statements.push(input), input * 2)),
        together: (inputs) =>
          Effect.sync(() => statements.push(inputs)).pipe(
            Effect.andThen(Deferred.succeed(started, undefined)),
            Effect.andThen(Deferred.await(gate)),
            Effect.andThen(Effect.fail(new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: "shared statement failed" }) })))
          ),
        max: 10
      })
      const kept = yield* Effect.forkChild(run(1), { startImmediately: true })
      const dropped = yield* Effect.forkChild(run(2), { startImmediately: true })
      yield* Deferred.await(started)
      yield* Fiber.interrupt(dropped)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(kept), 2)
      // The requests run alone concurrently: let the whole batch finish before reading what ran.
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      assert.deepStrictEqual(statements, [[1, 2], 1])
    }))

  it.effect("inside a transaction each request runs alone", () =>
    Effect.gen(function*() {
      const { run, statements } = recording()
      const results = yield* Effect.all([run(1), run(2)], { concurrency: "unbounded" }).pipe(
        Effect.provideService(Transaction, [{} as never, 1])
      )
      assert.deepStrictEqual(results, [2, 4])
      assert.deepStrictEqual(statements, [1, 2])
    }))

  it.effect("nothing keeps a batch or its requests once it has run", () =>
    Effect.gen(function*() {
      setFlagsFromString("--expose-gc")
      const gc = runInNewContext("gc") as () => void
      const shared = SharedStatement.make<object, number, never>(sql, {
        alone: () => Effect.succeed(0),
        together: (inputs) => Effect.succeed(inputs.map(() => Exit.succeed(0))),
        max: 10
      })
      const tracked: Array<WeakRef<object>> = []
      const request = Effect.suspend(() => {
        const input = { payload: new Array(1000).fill(0) }
        tracked.push(new WeakRef(input))
        return shared(input)
      })
      yield* Effect.all([request, request, request], { concurrency: "unbounded" })
      // Out of the turn the batch ran in, then a full collection: its inputs are gone.
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      gc()
      assert.deepStrictEqual(tracked.map((ref) => ref.deref() === undefined), [true, true, true])
    }))
})
