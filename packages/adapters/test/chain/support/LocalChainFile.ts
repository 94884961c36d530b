/**
 * What the contract tests share: a local chain started for the file, a public client of it, a
 * wallet client signing as one of its accounts, and the custom error a call would revert with.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { type Abi, type Address, createPublicClient, createWalletClient, decodeErrorResult, type Hex, http, type PublicClient } from "viem"
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

/**
 * The custom error, with its arguments, that `data` sent to `to` by `from` would revert with, decoded
 * with `abi` (its raw data when `abi` does not know it); null when the call would succeed.
 */
export const refusalOf = async (client: PublicClient, abi: Abi, from: Address, to: Address, data: Hex): Promise<string | null> => {
  try {
    await client.call({ account: from, to, data })
    return null
  } catch (error) {
    const revert = (error as { walk: (f: (e: unknown) => boolean) => { data?: Hex } | null }).walk((e) => typeof (e as { data?: unknown }).data === "string")
    if (revert?.data === undefined) return (error as Error).message.split("\n")[0]!
    try {
      const decoded = decodeErrorResult({ abi, data: revert.data })
      return decoded.args === undefined || decoded.args.length === 0 ? decoded.errorName : `${decoded.errorName}(${decoded.args.join(",")})`
    } catch {
      return revert.data
    }
  }
}
