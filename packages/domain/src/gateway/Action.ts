/**
 * Data of a `walletRpc` action: a JSON-RPC call for the wallet to make. `chain_id` is snake_case
 * on purpose (the wallet SDKs' format); `params` are arbitrary JSON values.
 */
export interface WalletRpcAction {
  readonly chain_id: string
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

/** Data of a `build` action: an opaque string that the gateway's fetch resolves into `walletRpc` actions. */
export interface BuildAction {
  readonly data: string
}

/** The `{"type": "walletRpc", "data": WalletRpcAction}` member of {@link Action}. */
export interface ActionWalletRpc {
  readonly type: "walletRpc"
  readonly data: WalletRpcAction
}

/** The `{"type": "build", "data": BuildAction}` member of {@link Action}. */
export interface ActionBuild {
  readonly type: "build"
  readonly data: BuildAction
}

/** An action the wallet carries out to complete an option, told apart by `type` (spec "Action"). */
export type Action = ActionWalletRpc | ActionBuild
