import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Logger, Option, References } from "effect"
import * as Configuration from "../src/Configuration.ts"
import * as HumanLogger from "../src/HumanLogger.ts"
import * as LogOutput from "../src/LogOutput.ts"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))

describe("LogOutput", () => {
  it("pretty on a terminal, JSON elsewhere, LOG_FORMAT either way", () => {
    assert.strictEqual(LogOutput.chooseFormat(Option.none(), true), "pretty")
    assert.strictEqual(LogOutput.chooseFormat(Option.none(), false), "json")
    assert.strictEqual(LogOutput.chooseFormat(Option.some("json"), true), "json")
    assert.strictEqual(LogOutput.chooseFormat(Option.some("pretty"), false), "pretty")
  })

  it("reads LOG_FORMAT and LOG_LEVEL in any case, blank as unset, and refuses other values", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Configuration.logFormat.pipe(withEnv({ LOG_FORMAT: " JSON " })), Option.some("json"))
      assert.deepStrictEqual(yield* Configuration.logFormat.pipe(withEnv({ LOG_FORMAT: "" })), Option.none())
      assert.deepStrictEqual(yield* Configuration.logLevel.pipe(withEnv({ LOG_LEVEL: "Debug" })), Option.some("debug"))
      assert.deepStrictEqual(yield* Configuration.logLevel.pipe(withEnv({})), Option.none())
      const refused = yield* Effect.flip(Configuration.logLevel.pipe(withEnv({ LOG_LEVEL: "verbose" })))
      assert.include(String(refused), "must be one of trace, debug, info, warn, error, fatal, none")
      assert.strictEqual(LogOutput.chooseLevel(Option.some("debug")), "Debug")
      assert.strictEqual(LogOutput.chooseLevel(Option.some("none")), "None")
      assert.strictEqual(LogOutput.chooseLevel(Option.none()), "Info")
    }).pipe(Effect.runPromise))

  it("LOG_LEVEL is the least severe level written", async () => {
    const written: Array<string> = []
    const program = Effect.gen(function*() {
      yield* Effect.logDebug("request", { status: 200 })
      yield* Effect.logInfo("listening")
      yield* Effect.logWarning("careful")
    })
    const run = (level: "Debug" | "Info" | "Warn") =>
      program.pipe(
        Effect.provide(Logger.layer([HumanLogger.make((line) => written.push(line.slice(9)))])),
        Effect.provideService(References.MinimumLogLevel, level),
        Effect.runPromise
      )
    await run("Info")
    assert.deepStrictEqual(written.splice(0), ["listening", "WARN  careful"])
    await run("Debug")
    assert.deepStrictEqual(written.splice(0), ["DEBUG request status=200", "listening", "WARN  careful"])
    await run("Warn")
    assert.deepStrictEqual(written.splice(0), ["WARN  careful"])
  })
})

describe("HumanLogger", () => {
  const at = new Date(2026, 0, 2, 3, 4, 5)

  it("one short line: the time, the level unless info, the message and its fields", () => {
    const none = { reasons: [] } as never
    assert.strictEqual(HumanLogger.formatLine(["request", { method: "GET", path: "/v1/payments", status: 200 }], "Info", at, none), "03:04:05 request method=GET path=/v1/payments status=200")
    assert.strictEqual(HumanLogger.formatLine("chain down", "Warn", at, none), "03:04:05 WARN  chain down")
    assert.strictEqual(HumanLogger.formatLine(["note", { text: "two words", n: 10n }], "Error", at, none), `03:04:05 ERROR note text="two words" n=10`)
  })

  it("writes a failure's first line, never a stack", async () => {
    const written: Array<string> = []
    await Effect.logError("unhandled request failure", new Error("boom")).pipe(
      Effect.provide(Logger.layer([HumanLogger.make((line) => written.push(line))])),
      Effect.runPromise
    )
    assert.strictEqual(written.length, 1)
    assert.match(written[0]!, /^\d\d:\d\d:\d\d ERROR unhandled request failure boom$/)
  })
})
