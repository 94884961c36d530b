import { Context, type Effect, type Result } from "effect"
import type { OptionClaims } from "../gateway/OptionId.ts"
import type { Action } from "../gateway/Action.ts"

/**
 * Builds the wallet actions that complete an option, per chain namespace: for eip155 pull
 * payments one `eth_signTypedData_v4` of the EIP-3009 `TransferWithAuthorization`; for push
 * payments one `build` action that `/fetch` turns into an `eth_sendTransaction`.
 */
export class WalletActions extends Context.Service<WalletActions, {
  /** `validBefore`: Unix second the authorization stops being valid. */
  readonly actionsFor: (claims: OptionClaims, optionId: string, validBefore: number) => Effect.Effect<ReadonlyArray<Action>>
  /** The `data` of a push option's `build` action: what `/fetch` is sent to resolve it. */
  readonly buildData: (claims: OptionClaims) => string
  /**
   * The actions that complete a push option (what `/fetch` resolves its `build` action to), or a
   * phrase saying why they cannot be built: the configuration no longer offers the option.
   */
  readonly pushTransfer: (claims: OptionClaims) => Result.Result<ReadonlyArray<Action>, string>
}>()("@paygate/domain/WalletActions") {}
