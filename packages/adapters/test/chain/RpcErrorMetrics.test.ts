/**
 * Every failed chain call through `rpc` (the chain adapter's single entry point) is counted in
 * `paygate_chain_rpc_errors_total` by chain, operation and failure; successful calls are not.
 * Against a real anvil node (a method it refuses: `rejected`) and a port nobody listens on
 * (`unavailable`). The registry is per process: counters are compared before and after.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric, Redacted } from "effect"
import { createServer } from "node:net"
import * as Anvil from "../../src/chain/Anvil.ts"
import { makeClient, rpc } from "../../src/chain/RpcCall.ts"
import { ProcessMetrics } from "@paygate/observability"

const chainId = "eip155:31337"
const count = (operation: string, failure: string) =>
  Effect.map(Metric.value(ProcessMetrics.chainRpcErrors(chainId, operation, failure)), (state) => state.count)

// A port that was free a moment ago: connecting to it is refused.
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
)

describe("chain RPC error metrics", () => {
  it.live("counts failed calls by chain, operation and failure, and nothing for successful ones", () =>
    Effect.gen(function*() {
      const node = yield* Anvil.start()
      const client = makeClient(Redacted.make(node.rpcUrl), { timeout: "2 seconds" })
      const down = makeClient(Redacted.make(`http://127.0.0.1:${yield* closedPort}`), { timeout: "2 seconds" })
      const before = {
        rejected: yield* count("eth_noSuchMethod", "rejected"),
        unavailable: yield* count("eth_blockNumber", "unavailable"),
        succeeded: [
          yield* count("eth_blockNumber", "rejected"),
          yield* count("eth_blockNumber", "reverted")
        ]
      }

      yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber())
      const refused = yield* Effect.flip(rpc(chainId, "eth_noSuchMethod", () => client.request({ method: "eth_noSuchMethod" } as never)))
      assert.strictEqual(refused.failure, "rejected")
      const unreachable = yield* Effect.flip(rpc(chainId, "eth_blockNumber", () => down.getBlockNumber()))
      assert.strictEqual(unreachable.failure, "unavailable")
      yield* Effect.flip(rpc(chainId, "eth_blockNumber", () => down.getBlockNumber()))

      assert.strictEqual((yield* count("eth_noSuchMethod", "rejected")) - before.rejected, 1)
      assert.strictEqual((yield* count("eth_blockNumber", "unavailable")) - before.unavailable, 2)
      assert.deepStrictEqual([yield* count("eth_blockNumber", "rejected"), yield* count("eth_blockNumber", "reverted")], before.succeeded)
      // As `GET /metrics` renders it.
      const text = yield* ProcessMetrics.render
      assert.match(
        text,
        new RegExp(`^paygate_chain_rpc_errors_total\\{(?=[^}]*chain_id="${chainId}")(?=[^}]*operation="eth_noSuchMethod")(?=[^}]*failure="rejected")[^}]*\\} [1-9]`, "m")
      )
    }).pipe(Effect.scoped), 60_000)
})
