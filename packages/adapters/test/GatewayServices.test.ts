import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as GatewayServices from "../src/GatewayServices.ts"

const withEnv = (env: Record<string, string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, ConfigProvider.layer(ConfigProvider.fromUnknown(env)))

const secret = GatewayServices.secretFromConfig

describe("GatewayServices: the option id secret", () => {
  it.effect("OPTION_ID_SECRET: base64 of at least 32 bytes", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(40).map((_, i) => i)
      const ok = yield* secret.pipe(withEnv({ OPTION_ID_SECRET: Buffer.from(bytes).toString("base64"), DATABASE_URL: "postgres://x" }))
      assert.deepStrictEqual(ok, bytes)
      for (const bad of [Buffer.alloc(31).toString("base64"), "not base64!", "YWJj"]) {
        const error = yield* Effect.flip(secret.pipe(withEnv({ OPTION_ID_SECRET: bad })))
        assert.strictEqual(error._tag, "OptionIdSecretError")
        // The message never repeats the value.
        assert.notInclude(error.message, bad)
      }
    }))

  it.effect("unset on the embedded database: generated once, kept beside the data directory", () =>
    Effect.gen(function*() {
      const dataDir = join(mkdtempSync(join(tmpdir(), "paygate-secret-")), "pglite")
      const first = yield* secret.pipe(withEnv({ PAYGATE_DATA_DIR: dataDir }))
      const second = yield* secret.pipe(withEnv({ PAYGATE_DATA_DIR: dataDir }))
      assert.strictEqual(first.length, 32)
      assert.deepStrictEqual(second, first)
      const file = `${dataDir}.option-id-secret`
      assert.strictEqual(readFileSync(file, "utf8").trim(), Buffer.from(first).toString("base64"))
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
    }))

  it.effect("unset on PostgreSQL: a fresh secret per start", () =>
    Effect.gen(function*() {
      const a = yield* secret.pipe(withEnv({ DATABASE_URL: "postgres://db.example/paygate" }))
      const b = yield* secret.pipe(withEnv({ DATABASE_URL: "postgres://db.example/paygate" }))
      assert.strictEqual(a.length, 32)
      assert.notDeepEqual(a, b)
    }))
})
