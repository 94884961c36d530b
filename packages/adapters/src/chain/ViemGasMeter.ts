/**
 * The domain's `GasMeter` on EVM chains: a mined transaction's `gasUsed` × `effectiveGasPrice` from
 * its receipt, when one of the service's signers sent it (the chain's executor, which also sweeps
 * deposits, or its collection address, which signs payouts). A transaction anyone else sent (a
 * buyer submitting their own authorization) cost the service nothing.
 *
 * @module
 */
import { ChainUnavailable, GasMeter, GasPaid } from "@paygate/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { type Hash, TransactionReceiptNotFoundError } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { type ChainSettings, ChainsConfig } from "./ChainConfig.ts"
import { isNativeAssetId } from "./NativeAsset.ts"
import { makeClient, rpc } from "./RpcCall.ts"

// SLIP-44 coin types of the chains whose native asset is not ether.
const polygonChains = new Set(["eip155:137", "eip155:80002"])

/** Builds the meter over the configured chains. */
export const make = Effect.gen(function*() {
  const chains = yield* ChainsConfig
  const byChain = new Map(chains.settings.chains.map((settings) => {
    const signers = [settings.executorPrivateKey, settings.collectionPrivateKey].flatMap((key) =>
      key === undefined ? [] : [privateKeyToAccount(Redacted.value(key)).address.toLowerCase()]
    )
    signers.push(settings.collectionAddress.toLowerCase())
    const configured = chains.settings.assets.find((asset) => isNativeAssetId(asset.assetId) && asset.assetId.startsWith(`${settings.chainId}/`))
    const native = configured?.assetId ?? `${settings.chainId}/slip44:${polygonChains.has(settings.chainId) ? 966 : 60}`
    return [settings.chainId, { client: makeClient(settings.rpcUrl), signers: new Set(signers), native }] as const
  }))

  const paid = (asset: string, txHash: string) =>
    Effect.gen(function*() {
      const chainId = asset.slice(0, asset.indexOf("/"))
      const chain = byChain.get(chainId as ChainSettings["chainId"])
      if (chain === undefined || !/^0x[0-9a-fA-F]{64}$/.test(txHash)) return Option.none<GasPaid>()
      const receipt = yield* rpc(chainId, "eth_getTransactionReceipt", () =>
        chain.client.getTransactionReceipt({ hash: txHash as Hash }).catch((error: unknown) => {
          if (error instanceof TransactionReceiptNotFoundError) return undefined
          throw error
        })).pipe(Effect.mapError((error) => new ChainUnavailable({ chainId, message: error.message })))
      if (receipt === undefined || !chain.signers.has(receipt.from.toLowerCase())) return Option.none<GasPaid>()
      return Option.some(
        new GasPaid({
          chainId,
          asset: chain.native,
          txHash: txHash.toLowerCase(),
          payer: receipt.from.toLowerCase(),
          gasUsed: receipt.gasUsed,
          effectiveGasPrice: receipt.effectiveGasPrice
        })
      )
    }).pipe(Effect.withSpan("GasMeter.paid", { attributes: { asset, txHash } }))

  return GasMeter.of({ paid })
})

/** The meter over the configured chains; needs `ChainsConfig`. */
export const layer: Layer.Layer<GasMeter, never, ChainsConfig> = Layer.effect(GasMeter, make)
