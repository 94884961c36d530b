/**
 * Local-chain tooling: the anvil binary from npm, anvil's lifecycle, and the compiled contracts'
 * artefact being up to date with the Solidity sources.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Result, Scope } from "effect"
import { execFile } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { createPublicClient, http } from "viem"
import * as Anvil from "../../src/chain/Anvil.ts"
import { resolveAnvilBinary } from "../../src/chain/AnvilBinary.ts"
import { compilerVersion, TestUsdc } from "../../src/chain/contracts.generated.ts"

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url))

const answers = (rpcUrl: string) =>
  Effect.promise(() =>
    createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 1_000 }) }).getChainId().then(
      (id) => id,
      () => undefined
    )
  )

describe("anvil binary", () => {
  it("resolves to an executable shipped by the npm package on this platform", () => {
    const binary = resolveAnvilBinary()
    assert.isTrue(Result.isSuccess(binary), String(binary))
    if (Result.isSuccess(binary)) {
      assert.match(binary.success, /@foundry-rs\/anvil/)
      accessSync(binary.success, constants.X_OK)
    }
  })

  it("explains what is missing on a platform without a package", () => {
    const binary = resolveAnvilBinary("aix", "ppc64")
    assert.isTrue(Result.isFailure(binary))
    if (Result.isFailure(binary)) assert.match(binary.failure, /no anvil binary for aix-ppc64/)
  })
})

describe("Anvil", () => {
  it.live("answers on a free port with the chosen chain id, and is gone once the scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const node = yield* Anvil.start({ chainId: 4242 }).pipe(Scope.provide(scope))
      assert.match(node.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.strictEqual(node.chainId, 4242)
      assert.strictEqual(yield* answers(node.rpcUrl), 4242)
      yield* Scope.close(scope, Exit.void)
      assert.isUndefined(yield* answers(node.rpcUrl))
    }))

  it.live("mines blocks on a timer with blockTimeSeconds", () =>
    Effect.scoped(Effect.gen(function*() {
      const node = yield* Anvil.start({ blockTimeSeconds: 0.2 })
      const client = createPublicClient({ transport: http(node.rpcUrl) })
      const first = yield* Effect.promise(() => client.getBlockNumber({ cacheTime: 0 }))
      yield* Effect.sleep(Duration.millis(700))
      const later = yield* Effect.promise(() => client.getBlockNumber({ cacheTime: 0 }))
      assert.isAtLeast(Number(later - first), 2)
    })))

  it.live("fails with AnvilError when the binary cannot run", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(Anvil.start({ binary: "/nonexistent/anvil" })))
      assert.strictEqual(error._tag, "AnvilError")
    }))
})

describe("contracts.generated.ts", () => {
  it("is what compiling the Solidity sources gives (node scripts/compile-contracts.mjs --check)", async () => {
    const run = promisify(execFile)
    const { stdout } = await run(process.execPath, ["scripts/compile-contracts.mjs", "--check"], { cwd: repoRoot })
    assert.match(stdout, /up to date/)
    assert.match(compilerVersion, /^0\.8\.\d+\+commit\.[0-9a-f]+/)
    assert.isTrue(TestUsdc.bytecode.startsWith("0x60"))
  }, 60_000)
})
