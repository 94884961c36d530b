/**
 * The local chain `npm start` runs, kept across restarts (a `stateFile`) on a fixed port: the same
 * RPC address, the same test token, old transactions and balances still there after a stop, and
 * after a kill -9 of its host (the anvil left behind is stopped, its state taken over). A port in use
 * is one clear line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Result } from "effect"
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { encodeFunctionData, type Hash } from "viem"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { resolveAnvilBinary } from "../../src/chain/AnvilBinary.ts"
import { TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import { freePort } from "../../../../test/support/FreePort.ts"
import { makeClient } from "../../src/chain/RpcCall.ts"


/** Runs `body` against a local chain started with `options`, then stops it (the scope closes). */
const withChain = <A>(options: LocalChain.LocalChainOptions, body: (info: LocalChain.LocalChainInfo) => Promise<A>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const info = yield* LocalChain.LocalChain
      return yield* Effect.promise(() => body(info))
    }).pipe(Effect.provide(LocalChain.layer(options)))
  )

/** Anvil #1 sends 7 TUSDC to anvil #2 (mined at once); answers the transaction hash. */
const transfer = async (info: LocalChain.LocalChainInfo): Promise<Hash> => {
  const client = makeClient(Redacted.make(info.node.rpcUrl))
  const hash = await fetch(info.node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_sendTransaction",
      params: [{
        from: anvilAccount(1).address,
        to: info.contracts.usdc,
        data: encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [anvilAccount(2).address, 7_000_000n] })
      }]
    })
  }).then((response) => response.json() as Promise<{ result: Hash }>)
  await client.waitForTransactionReceipt({ hash: hash.result, pollingInterval: 50 })
  return hash.result
}

const balanceOf = (info: LocalChain.LocalChainInfo, who: `0x${string}`) =>
  makeClient(Redacted.make(info.node.rpcUrl)).readContract({ address: info.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [who] })

/** The state is written every second: wait past one write. */
const stateWritten = () => new Promise((resolve) => setTimeout(resolve, 1_500))

describe("LocalChain kept across restarts", () => {
  it("keeps its port, its token, its transactions and balances across a stop and a kill -9 of its host", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paygate-chain-"))
    try {
      const port = await freePort()
      const options = { port, stateFile: join(dir, "chain", "state.json") }

      const first = await withChain(options, async (info) => {
        const hash = await transfer(info)
        await stateWritten()
        return { usdc: info.contracts.usdc, rpcUrl: info.node.rpcUrl, hash, balance: await balanceOf(info, anvilAccount(2).address) }
      })
      expect(first.rpcUrl).toBe(`http://127.0.0.1:${port}`)

      // A restart: same address, same token, the transaction and the balance are still there.
      const second = await withChain(options, async (info) => {
        const client = makeClient(Redacted.make(info.node.rpcUrl))
        const receipt = await client.getTransactionReceipt({ hash: first.hash })
        expect(receipt.status).toBe("success")
        expect(await balanceOf(info, anvilAccount(2).address)).toBe(first.balance)
        return { usdc: info.contracts.usdc, rpcUrl: info.node.rpcUrl }
      })
      expect(second).toEqual({ usdc: first.usdc, rpcUrl: first.rpcUrl })

      // A deployment recorded before deposit addresses and subscriptions (no factory, no vault): the token
      // stays, a factory and a vault are added and recorded.
      const recordFile = join(dir, "chain", "deployment.json")
      const { depositFactory: _older, subscriptionVault: _vault, ...older } = JSON.parse(readFileSync(recordFile, "utf8"))
      writeFileSync(recordFile, JSON.stringify(older))
      const upgraded = await withChain(options, async (info) => {
        const client = makeClient(Redacted.make(info.node.rpcUrl))
        const code = await client.getCode({ address: info.contracts.depositFactory })
        const vaultCode = await client.getCode({ address: info.contracts.subscriptionVault })
        await stateWritten()
        return { usdc: info.contracts.usdc, depositFactory: info.contracts.depositFactory, subscriptionVault: info.contracts.subscriptionVault, code, vaultCode }
      })
      expect(upgraded.usdc).toBe(first.usdc)
      expect(upgraded.code).toMatch(/^0x[0-9a-f]+$/)
      expect(upgraded.vaultCode).toMatch(/^0x[0-9a-f]+$/)
      const recorded = JSON.parse(readFileSync(recordFile, "utf8"))
      expect(recorded.depositFactory).toBe(upgraded.depositFactory)
      expect(recorded.subscriptionVault).toBe(upgraded.subscriptionVault)

      // A host killed with -9 leaves its anvil running on the port and the state: it is stopped,
      // and the next start has the chain as that anvil last wrote it.
      const binary = Result.getOrThrow(resolveAnvilBinary())
      const orphan = spawn(binary, ["--host", "127.0.0.1", "--port", String(port), "--state", options.stateFile, "--state-interval", "1"], {
        stdio: "ignore",
        detached: true
      })
      writeFileSync(`${options.stateFile}.pid`, String(orphan.pid))
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const third = await withChain(options, async (info) => {
        const hash = await transfer(info)
        expect(await balanceOf(info, anvilAccount(2).address)).toBe(first.balance + 7_000_000n)
        return { usdc: info.contracts.usdc, hash }
      })
      expect(third.usdc).toBe(first.usdc)
      expect(orphan.exitCode !== null || orphan.signalCode !== null).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("a port in use is one clear line, not anvil's output", async () => {
    const server = createServer()
    const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)))
    try {
      const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(LocalChain.layer({ port }))))
      expect(Exit.isFailure(exit)).toBe(true)
      const message = JSON.stringify(exit)
      expect(message).toContain(`the local chain's port ${port} is in use`)
    } finally {
      server.close()
    }
  }, 30_000)
})
