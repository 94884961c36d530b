import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { hashMessage, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"

// Worker threads of this process: Node names them `WorkerThread` (Linux, where CI runs, lists threads in /proc).
const workerThreads = () =>
  readdirSync("/proc/self/task").filter((task) => readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "WorkerThread")
    .length

const signed = Effect.promise(async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const message = toHex(crypto.getRandomValues(new Uint8Array(20)))
  return { address: account.address, hash: hashMessage({ raw: message }), signature: await account.signMessage({ message: { raw: message } }) }
})

describe("SignatureRecovery worker pool", () => {
  it.live("starts no worker until a recovery, another only while all are busy, at most its size", () =>
    Effect.gen(function*() {
      const before = workerThreads()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(SignatureRecovery.layerWorkers({ size: 2 }), scope)
      const pool = Context.get(context, SignatureRecovery.SignatureRecovery)
      assert.strictEqual(workerThreads() - before, 0, "none at start")

      const one = yield* signed
      assert.deepStrictEqual(yield* pool.recover(one.hash, one.signature), Option.some(one.address))
      assert.strictEqual(workerThreads() - before, 1, "one for one recovery at a time")
      assert.deepStrictEqual(yield* pool.recover(one.hash, one.signature), Option.some(one.address))
      assert.strictEqual(workerThreads() - before, 1, "an idle worker is reused")

      const many = yield* Effect.forEach(Array.from({ length: 20 }), () => signed)
      const recovered = yield* Effect.forEach(many, (s) => pool.recover(s.hash, s.signature), { concurrency: "unbounded" })
      assert.deepStrictEqual(recovered, many.map((s) => Option.some(s.address)))
      assert.strictEqual(workerThreads() - before, 2, "overlapping recoveries grow the pool to its size, no further")

      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(workerThreads() - before, 0, "the scope stops them")
    }))
})
