import type { CollectedData } from "../datacollection/CollectedData.ts"

/** The values a wallet got from carrying out one `walletRpc` action (a signature or a transaction hash). */
export interface WalletRpcResult {
  readonly type: "walletRpc"
  readonly data: ReadonlyArray<string>
}

/**
 * A wallet's confirm of an option (API rules §10): the option id it was given, the results of the
 * option's actions in their order, and the buyer data it collected itself, if any.
 */
export interface Confirmation {
  readonly optionId: string
  readonly results: ReadonlyArray<WalletRpcResult>
  readonly collectedData: CollectedData | null
}
