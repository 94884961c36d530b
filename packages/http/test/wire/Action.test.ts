import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Action } from "../../src/api/wire/Action.ts"
import { wireExamples } from "../../../../test/support/WireExamples.ts"
import { reencodeJson, rejectsStructurally } from "../../../../test/support/WireRoundTrip.ts"

describe("Action", () => {
  it("round-trips an EIP-3009 walletRpc action and a build action byte for byte", () => {
    for (const example of [wireExamples.walletRpcAction, wireExamples.buildAction]) {
      const text = JSON.stringify(example)
      assert.strictEqual(reencodeJson(Action, text), text)
    }
  })

  it("keeps chain_id snake_case and params as given", () => {
    const decoded = Schema.decodeUnknownSync(Action)(wireExamples.walletRpcAction)
    assert.isTrue(Action.guards.walletRpc(decoded))
    if (decoded.type !== "walletRpc") return
    assert.strictEqual(decoded.data.chain_id, "eip155:8453")
    assert.deepStrictEqual(JSON.parse(String(decoded.data.params[1])), wireExamples.transferWithAuthorization)
  })

  it("passes arbitrary JSON params through", () => {
    const text = JSON.stringify({
      type: "walletRpc",
      data: { chain_id: "eip155:1", method: "eth_sendTransaction", params: [{ a: [1, null, true] }, 2, "x", null] }
    })
    assert.strictEqual(reencodeJson(Action, text), text)
  })

  it("rejects an unknown type, a camelCase chainId, non-array params and mismatched data", () => {
    const rpc = wireExamples.walletRpcAction
    assert.isTrue(rejectsStructurally(Action, { ...rpc, type: "sign" }))
    assert.isTrue(rejectsStructurally(Action, { data: rpc.data }))
    const { chain_id, ...rest } = rpc.data
    assert.isTrue(rejectsStructurally(Action, { type: "walletRpc", data: { ...rest, chainId: chain_id } }))
    assert.isTrue(rejectsStructurally(Action, { type: "walletRpc", data: { ...rpc.data, params: "[]" } }))
    assert.isTrue(rejectsStructurally(Action, { type: "build", data: rpc.data }))
    assert.isTrue(rejectsStructurally(Action, { type: "build", data: { data: 1 } }))
  })
})
