/**
 * The domain's `ChainGateway` port on EVM chains, with viem: `verify` checks pull proofs (EIP-3009
 * signatures, see `VerifyAuthorization.ts`; a held payment's, to the chain's payment escrow) and push proofs (transfers with a reference, see
 * `VerifyPushTransfer.ts`); `submit` sends pull payments through each chain's executor with one
 * nonce sequence, within the chain's gas policy (`SubmitAuthorization.ts`, `ExecutorSender.ts`,
 * `GasPolicy.ts`); `usedBy` and `expiredOnChain` tell whether an authorization can still pay; `observe` reports outcomes with
 * the chain's required confirmations (`ObserveTransfer.ts`); `tokenDomain` and `balanceOf` read a token
 * for x402 (`TokenReads.ts`).
 *
 * Wiring:
 *
 * ```ts
 * ViemChainGateway.layer.pipe(
 *   Layer.provide(ChainConfig.layerFromEnv),           // or ChainConfig.layer(json), LocalChain.layer()
 *   Layer.provide(SignatureRecovery.layerWorkers())    // recovery off the event loop
 * )
 * ```
 *
 * @module
 */
import { ChainGateway, type PaymentProof } from "@paygate/domain"
import { type Duration, Effect, Layer, type Scope } from "effect"
import { type ChainConfigError, ChainsConfig, lookupAsset, viaPermit2 } from "./ChainConfig.ts"
import * as ChainRuntime from "./ChainRuntime.ts"
import { observeTransfer } from "./ObserveTransfer.ts"
import { permitUse, submitPermit2, verifyPermit2 } from "./Permit2Transfers.ts"
import { authorizationExpired, authorizationUse, submitAuthorization } from "./SubmitAuthorization.ts"
import { SignatureRecovery } from "./SignatureRecovery.ts"
import { tokenBalance, tokenDomain } from "./TokenReads.ts"
import { verifyAuthorization } from "./VerifyAuthorization.ts"
import { verifyPushTransfer } from "./VerifyPushTransfer.ts"

/** Tuning of {@link make}; every field has a default. */
export interface GatewayOptions {
  /** Timeout of each JSON-RPC request; default 10 seconds. */
  readonly rpcTimeout?: Duration.Input | undefined
  /** Bound on one `observe`, after which it answers `unknown`; default 15 seconds. */
  readonly observeTimeout?: Duration.Input | undefined
  /** How long `verify` looks for a push transaction the node has not seen yet; default 5 seconds. */
  readonly pushLookupWindow?: Duration.Input | undefined
}

/** Builds the gateway for the configured chains (checking that each RPC serves its chain, if it answers). */
export const make = Effect.fn("ViemChainGateway.make")(function*(
  options: GatewayOptions = {}
): Effect.fn.Return<ChainGateway["Service"], ChainConfigError, ChainsConfig | SignatureRecovery | Scope.Scope> {
  const chains = yield* ChainsConfig
  const recovery = yield* SignatureRecovery
  const built = yield* Effect.forEach(
    chains.settings.chains,
    (settings) => ChainRuntime.make(settings, { rpcTimeout: options.rpcTimeout }),
    { concurrency: "unbounded" }
  )
  const runtimes = new Map(built.map((runtime) => [runtime.chainId, runtime]))

  // Pull payments in a token configured for Permit2 go through Permit2 (`Permit2Transfers.ts`); held
  // payments never do (the escrow takes EIP-3009 authorizations only, and refuses the others).
  const permit2 = (proof: PaymentProof) => {
    const found = lookupAsset(chains, proof.asset)
    return found !== undefined && viaPermit2(found.asset) && !(proof._tag === "Authorization" && proof.escrow !== undefined)
  }
  return ChainGateway.of({
    verify: (proof) =>
      proof._tag === "Authorization"
        ? permit2(proof)
          ? verifyPermit2({ chains, runtimes, recovery, lookupWindow: options.pushLookupWindow }, proof)
          : verifyAuthorization({ chains, runtimes, recovery }, proof)
        : verifyPushTransfer({ chains, runtimes, lookupWindow: options.pushLookupWindow }, proof),
    submit: (proof) => (permit2(proof) ? submitPermit2 : submitAuthorization)({ chains, runtimes }, proof),
    usedBy: (proof) => authorizationUse({ chains, runtimes }, proof, ...(permit2(proof) ? [permitUse] as const : [] as const)),
    expiredOnChain: (proof) => authorizationExpired({ chains, runtimes }, proof),
    observe: (asset, txHash, recipient) =>
      observeTransfer({ chains, runtimes, timeout: options.observeTimeout }, asset, txHash, recipient),
    tokenDomain: (asset) => tokenDomain({ chains, runtimes }, asset),
    balanceOf: (asset, account) => tokenBalance({ chains, runtimes }, asset, account)
  })
})

/** The gateway with custom tuning. */
export const layerWith = (
  options: GatewayOptions
): Layer.Layer<ChainGateway, ChainConfigError, ChainsConfig | SignatureRecovery> =>
  Layer.effect(ChainGateway, make(options))

/** The gateway with default tuning; needs `ChainsConfig` and `SignatureRecovery`. */
export const layer: Layer.Layer<ChainGateway, ChainConfigError, ChainsConfig | SignatureRecovery> = layerWith({})
