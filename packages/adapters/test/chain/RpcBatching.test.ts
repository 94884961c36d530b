/**
 * The chain client sends the calls made in the same tick as one JSON-RPC batch, and each call still
 * gets its own answer or its own error. Against a stub node that counts HTTP requests.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import { makeClient, rpc } from "../../src/chain/RpcCall.ts"

interface RpcRequest {
  readonly id: number
  readonly method: string
  readonly params?: ReadonlyArray<string>
}

// Answers eth_getBalance with the address's last byte and refuses every other method, per entry of a batch.
const stubNode = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ server: Server; url: string; bodies: Array<unknown> }>((resolve) => {
      const bodies: Array<unknown> = []
      const answer = (request: RpcRequest) =>
        request.method === "eth_getBalance"
          ? { jsonrpc: "2.0", id: request.id, result: `0x${request.params![0]!.slice(-2)}` }
          : { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "Method not found" } }
      const server = createServer((req, res) => {
        let text = ""
        req.on("data", (chunk) => (text += chunk))
        req.on("end", () => {
          const body = JSON.parse(text) as RpcRequest | Array<RpcRequest>
          bodies.push(body)
          res.setHeader("content-type", "application/json")
          res.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)))
        })
      }).listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, bodies }))
    })
  ),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

describe("chain RPC batching", () => {
  it.live("sends concurrent calls as one batch; each call gets its own answer or error", () =>
    Effect.gen(function*() {
      const node = yield* stubNode
      const client = makeClient(Redacted.make(node.url), { timeout: "2 seconds" })
      const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as const
      const balances = [1, 2, 3, 4].map((n) => rpc("eip155:31337", "eth_getBalance", () => client.getBalance({ address: address(n) })))
      const refused = rpc("eip155:31337", "eth_noSuchMethod", () => client.request({ method: "eth_noSuchMethod" as "eth_chainId" }))
      const [answers, refusal] = yield* Effect.all([Effect.all(balances, { concurrency: "unbounded" }), Effect.flip(refused)], {
        concurrency: "unbounded"
      })
      assert.strictEqual(node.bodies.length, 1, "one HTTP request")
      assert.strictEqual((node.bodies[0] as Array<RpcRequest>).length, 5)
      assert.deepStrictEqual(answers, [1n, 2n, 3n, 4n])
      assert.strictEqual(refusal.failure, "rejected")
    }).pipe(Effect.scoped))
})
