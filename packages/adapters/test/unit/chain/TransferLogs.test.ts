/**
 * `TransferLogs` against a node that answers a log without its block (one it was still building):
 * the read fails, so the watcher reads the range again instead of moving past a transfer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createPublicClient, custom, encodeAbiParameters, pad, type PublicClient, toEventSelector } from "viem"
import { transfersIn, type WatchedChain } from "../../../src/chain/TransferLogs.ts"

const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
const collection = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
const payer = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"

/** A node whose `eth_getLogs` answers one transfer into the collection address, its block fields as given. */
const nodeAnswering = (place: { readonly blockHash: string | null; readonly blockNumber: string | null }) =>
  createPublicClient({
    transport: custom({
      request: async ({ method }) => {
        if (method !== "eth_getLogs") throw new Error(`unexpected ${method}`)
        return [{
          address: token,
          topics: [toEventSelector("Transfer(address,address,uint256)"), pad(payer), pad(collection)],
          data: encodeAbiParameters([{ type: "uint256" }], [5n]),
          ...place,
          transactionHash: `0x${"ab".repeat(32)}`,
          transactionIndex: "0x0",
          logIndex: "0x0",
          removed: false
        }]
      }
    })
  }) as PublicClient

const chainOf = (client: PublicClient): WatchedChain => ({
  chainId: "eip155:31337",
  client,
  collectionAddress: collection,
  requiredConfirmations: 1,
  tokens: new Map([[token, `eip155:31337/erc20:${token}`]]),
  depositFactories: [],
  nativeAsset: undefined
})

describe("TransferLogs.transfersIn", () => {
  it.effect("a log the node answers without its block fails the read (read again later), never skipped", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(transfersIn(chainOf(nodeAnswering({ blockHash: null, blockNumber: null })), 7, 7))
      assert.strictEqual(error._tag, "ChainRpcError")
      assert.strictEqual(error.failure, "unavailable")
      assert.include(error.message, "blocks 7..7")
    }))
})
