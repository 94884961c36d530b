import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as JsonLogger from "../src/JsonLogger.ts"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("JsonLogger", () => {
  it("writes consoleJson's shape, one line per entry, annotations included", async () => {
    const lines: Array<string> = []
    await Effect.logInfo("request", { status: 200 }).pipe(
      Effect.annotateLogs({ requestId: "req_1" }),
      Effect.provide(Logger.layer([JsonLogger.make((line) => lines.push(line))])),
      Effect.runPromise
    )
    assert.strictEqual(lines.length, 1)
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>
    assert.deepStrictEqual(entry.message, ["request", { status: 200 }])
    assert.strictEqual(entry.level, "INFO")
    assert.deepStrictEqual(entry.annotations, { requestId: "req_1" })
    assert.match(String(entry.timestamp), /^\d{4}-\d\d-\d\dT/)
  })

  it("still writes an entry JSON.stringify refuses (a bigint, a cycle)", () => {
    const cyclic: Record<string, unknown> = { amount: 10n }
    cyclic.self = cyclic
    const line = JsonLogger.toJsonLine(cyclic)
    assert.include(line, "amount")
    assert.doesNotThrow(() => JSON.parse(line))
  })

  it("writes the lines of one event-loop turn as one chunk, in order, right after it", async () => {
    const chunks: Array<string> = []
    const batcher = JsonLogger.lineBatcher((chunk) => chunks.push(chunk))
    batcher.push("a")
    batcher.push("b")
    assert.deepStrictEqual(chunks, [])
    await nextTurn()
    assert.deepStrictEqual(chunks, ["a\nb\n"])
    batcher.push("c")
    batcher.flush()
    await nextTurn()
    assert.deepStrictEqual(chunks, ["a\nb\n", "c\n"])
  })

  it("loses no line when the process exits right after logging", () => {
    const module = fileURLToPath(new URL("../src/JsonLogger.ts", import.meta.url))
    const script = `
      import { Effect } from "effect"
      import * as JsonLogger from ${JSON.stringify(module)}
      Effect.runSync(Effect.logInfo("last words").pipe(Effect.provide(JsonLogger.layer)))
      process.exit(3)`
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    assert.strictEqual(child.status, 3, child.stderr)
    const lines = child.stdout.trim().split("\n").map((line) => JSON.parse(line) as { message: string })
    assert.deepStrictEqual(lines.map((line) => line.message), ["last words"])
  })
})
