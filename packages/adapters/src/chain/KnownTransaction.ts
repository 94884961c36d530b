import { Effect } from "effect"
import { type Hash, type PublicClient, TransactionNotFoundError } from "viem"
import { type ChainRpcError, rpc } from "./RpcCall.ts"

/** Whether the node has the transaction `hash`, mined or in its pool (a sender tells its own broadcasts from dropped ones). */
export const isKnown = (chain: { readonly chainId: string; readonly client: PublicClient }, hash: Hash): Effect.Effect<boolean, ChainRpcError> =>
  rpc(chain.chainId, "eth_getTransactionByHash", () =>
    chain.client.getTransaction({ hash }).then(
      () => true,
      (error: unknown) => {
        if (error instanceof TransactionNotFoundError) return false
        throw error
      }
    ))
