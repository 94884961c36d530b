import { Context, type Effect, type Option } from "effect"
import type { SweptAmount } from "../deposit/DepositSweep.ts"
import type { SignedTransfer } from "../payout/Payout.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { PayoutOutcome, PayoutReverted } from "./Payouts.ts"

/**
 * Sweeps on chain: one transaction of the chain's executor (which pays the gas) to the deposit
 * factory deploys the forwarders of several deposit addresses where needed and moves their whole
 * balances of a token to the collection address. A sweep moves what is there when it is mined, so
 * sending one twice never moves anything twice.
 */
export class DepositSweeper extends Context.Service<DepositSweeper, {
  /** What the deposit address of `paymentId` holds of `asset` now. */
  readonly balance: (asset: string, paymentId: string) => Effect.Effect<bigint, ChainUnavailable>
  /**
   * Signs the sweep of the deposits of `paymentIds` in `asset` with the executor's next nonce and
   * hands it to `record`; broadcasts it only when `record` answers `true`, and answers it (else
   * none, nothing sent). `PayoutReverted` when it would revert; `ChainUnavailable` when the chain
   * cannot be reached (after a successful `record` too: the recorded sweep is broadcast by `resend`).
   */
  readonly send: (
    asset: string,
    paymentIds: ReadonlyArray<string>,
    record: (signed: SignedTransfer) => Effect.Effect<boolean>
  ) => Effect.Effect<Option.Option<SignedTransfer>, PayoutReverted | ChainUnavailable>
  /**
   * What the succeeded sweep `signed` moved to the collection address, per deposit address
   * (lower-case), as its transaction's `Transfer` logs say.
   */
  readonly moved: (asset: string, signed: SignedTransfer) => Effect.Effect<ReadonlyArray<SweptAmount>, ChainUnavailable>
  /** Broadcasts a recorded sweep again, byte for byte. */
  readonly resend: (asset: string, signed: SignedTransfer) => Effect.Effect<void, ChainUnavailable>
  /**
   * Where a recorded sweep stands: `succeeded` once included without reverting and confirmed, with
   * funds reaching the collection address; `failed` when included without moving any there;
   * `reverted`, `dropped` (its nonce went to another transaction), `pending`, `unknown`.
   */
  readonly observe: (asset: string, signed: SignedTransfer) => Effect.Effect<PayoutOutcome>
}>()("@paygate/domain/DepositSweeper") {}
