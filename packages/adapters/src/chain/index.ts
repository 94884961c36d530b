/**
 * EVM chain adapters: the domain's `ChainGateway`, `SubscriptionChain` and `EscrowChain` ports with viem, its configuration, signature
 * recovery off the event loop, and local-chain tooling (anvil, test contracts).
 *
 * A host wires the chain ports (`ChainGateway`, `AssetCatalog`, `WalletActions`) with
 *
 * ```ts
 * Layer.mergeAll(ViemChainGateway.layer, ChainAssetCatalog.layer, Eip155WalletActions.layer).pipe(
 *   Layer.provide(SignatureRecovery.layerWorkers()),
 *   Layer.provide(ChainSource.layer)                 // PAYGATE_NETWORKS (presets) or PAYGATE_CHAINS (JSON), validated at start
 * )
 * ```
 *
 * or, for local development, `Layer.provideMerge(LocalChain.layer())` instead of `ChainConfig`.
 *
 * @module
 */
export * as Anvil from "./Anvil.ts"
export { type AnvilAccount, anvilAccount, anvilAccounts } from "./AnvilAccounts.ts"
export { resolveAnvilBinary } from "./AnvilBinary.ts"
export * as ChainAssetCatalog from "./ChainAssetCatalog.ts"
export * as ChainConfiguredNetworks from "./ChainConfiguredNetworks.ts"
export * as ChainDeposits from "./ChainDeposits.ts"
export * as ChainExplorers from "./ChainExplorers.ts"
export * as ChainNetworkModes from "./ChainNetworkModes.ts"
export * as ChainConfig from "./ChainConfig.ts"
export * as ChainSource from "./ChainSource.ts"
export * as ContractDeployment from "./ContractDeployment.ts"
export * as Contracts from "./contracts.generated.ts"
export * as Deploy from "./Deploy.ts"
export * as DepositAddresses from "./DepositAddresses.ts"
export * as Eip155WalletActions from "./Eip155WalletActions.ts"
export * as Eip3009 from "./Eip3009.ts"
export { EvmAddress } from "./EvmAddress.ts"
export * as LocalChain from "./LocalChain.ts"
export * as LedgerLines from "./LedgerLines.ts"
export * as LocalWallet from "./LocalWallet.ts"
export * as NativeAsset from "./NativeAsset.ts"
export * as NativeTransfers from "./NativeTransfers.ts"
export * as NativePresets from "./NativePresets.ts"
export * as NetworkChecks from "./NetworkChecks.ts"
export * as NetworkPresets from "./NetworkPresets.ts"
export * as Permit2 from "./Permit2.ts"
export * as PushTransfer from "./PushTransfer.ts"
export { ChainRpcError } from "./RpcCall.ts"
export * as SignatureRecovery from "./SignatureRecovery.ts"
export * as StablecoinPresets from "./StablecoinPresets.ts"
export { authorizationCalldata, ChainSubmitError } from "./SubmitAuthorization.ts"
export * as GasPolicy from "./GasPolicy.ts"
export * as TransferLogs from "./TransferLogs.ts"
export * as ViemChainGateway from "./ViemChainGateway.ts"
export * as ViemEscrowChain from "./ViemEscrowChain.ts"
export * as ViemDepositSweeper from "./ViemDepositSweeper.ts"
export * as ViemGasMeter from "./ViemGasMeter.ts"
export * as ViemPayouts from "./ViemPayouts.ts"
export * as ViemSubscriptionChain from "./ViemSubscriptionChain.ts"
export * as ViemWatchedChains from "./ViemWatchedChains.ts"
