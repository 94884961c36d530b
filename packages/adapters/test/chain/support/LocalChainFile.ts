/**
 * What the contract tests share: a local chain started for the file, a public client of it, and a
 * wallet client signing as one of its accounts.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { createPublicClient, createWalletClient, type Hex, http, type PublicClient } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import * as LocalChain from "../../../src/chain/LocalChain.ts"

/** Starts a local chain in `scope` (closed by the caller); answers it and a public client of it. */
export const startLocalChain = async (scope: Scope.Scope) => {
  const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer(), scope))
  const chain = Context.get(context, LocalChain.LocalChain)
  return { chain, client: createPublicClient({ transport: http(chain.node.rpcUrl) }) as PublicClient }
}

/** A wallet client of `chain` signing and sending as `from`. */
export const walletOn = (chain: LocalChain.LocalChainInfo, from: { readonly privateKey: Hex }) =>
  createWalletClient({ account: privateKeyToAccount(from.privateKey), transport: http(chain.node.rpcUrl) })
