import { Schema } from "effect"

/**
 * Data of a `walletRpc` action: a JSON-RPC call for the wallet to make. `chain_id` is snake_case
 * on purpose (wallet SDK wire format); `params` are arbitrary JSON values.
 */
export const WalletRpcAction = Schema.Struct({
  chain_id: Schema.String,
  method: Schema.String,
  params: Schema.Array(Schema.Unknown)
}).annotate({ identifier: "WalletRpcAction" })

/** Decoded {@link WalletRpcAction}. */
export type WalletRpcAction = typeof WalletRpcAction.Type

/** Data of a `build` action: an opaque string that `/fetch` resolves into `walletRpc` actions. */
export const BuildAction = Schema.Struct({
  data: Schema.String
}).annotate({ identifier: "BuildAction" })

/** Decoded {@link BuildAction}. */
export type BuildAction = typeof BuildAction.Type

/** The `{"type": "walletRpc", "data": WalletRpcAction}` member of {@link Action}. */
export const ActionWalletRpc = Schema.Struct({
  type: Schema.Literal("walletRpc"),
  data: WalletRpcAction
}).annotate({ identifier: "ActionWalletRpc" })

/** Decoded {@link ActionWalletRpc}. */
export type ActionWalletRpc = typeof ActionWalletRpc.Type

/** The `{"type": "build", "data": BuildAction}` member of {@link Action}. */
export const ActionBuild = Schema.Struct({
  type: Schema.Literal("build"),
  data: BuildAction
}).annotate({ identifier: "ActionBuild" })

/** Decoded {@link ActionBuild}. */
export type ActionBuild = typeof ActionBuild.Type

/**
 * An action the wallet carries out to complete an option, discriminated by `type`
 * (spec "Action"). An unknown `type` fails decoding. `Action.cases`, `Action.guards` and
 * `Action.match` are available.
 */
export const Action = Schema.Union([ActionWalletRpc, ActionBuild]).pipe(Schema.toTaggedUnion("type"))

/** Decoded {@link Action}. */
export type Action = typeof Action.Type
