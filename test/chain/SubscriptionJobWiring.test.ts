/**
 * The worker as its process composes it (`WorkerLive` over the process's chain gateway and the
 * chains of `PAYGATE_CHAINS`, on a migrated PGlite) starts the subscription job on the local
 * chain, which deploys a subscription vault, beside the other jobs; on a chain without a vault
 * every other job starts and that one does not.
 */
import { Chain, WorkerPorts } from "@paygate/adapters"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { WorkerLive } from "../../app/WorkerLive.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { pglite } from "../support/TestServer.ts"

const world = localChainForFile()

/** The lines the worker logs while it starts on `chains` (JSON of `PAYGATE_CHAINS`), then stops. */
const startupLines = async (chains: unknown) => {
  const lines: Array<string> = []
  const capture = Logger.layer([Logger.make(({ message }) => void lines.push(String(Array.isArray(message) ? message[0] : message)))])
  const worker = WorkerLive.pipe(
    Layer.provide(WorkerPorts.chainGateway),
    Layer.provide(pglite.layer()),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
      PAYGATE_CHAINS: JSON.stringify(chains),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64")
    })))
  )
  await Effect.runPromise(Effect.scoped(Layer.build(worker)).pipe(Effect.provide(capture)))
  return lines.filter((line) => line.startsWith("worker started"))
}

describe("The worker's subscription job as the process wires it", () => {
  it("starts on the local chain, which has a subscription vault, beside the other jobs", async () => {
    const started = await startupLines(Chain.LocalChain.settingsFor(world().chain, 1))
    expect(started).toContain("worker started: subscriptions")
    expect(started).toContain("worker started: executor")
  })

  it("does not start when no configured chain has a vault; the other jobs do", async () => {
    const settings = Chain.LocalChain.settingsFor(world().chain, 1)
    const started = await startupLines({ ...settings, chains: settings.chains.map(({ subscriptionVault: _, ...chain }) => chain) })
    expect(started).not.toContain("worker started: subscriptions")
    expect(started).toContain("worker started: executor")
  })
})
