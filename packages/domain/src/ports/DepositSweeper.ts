import { Context, type Effect, type Option } from "effect"
import type { DepositSweep, SweptAmount } from "../deposit/DepositSweep.ts"
import type { SignedTransfer } from "../payout/Payout.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { PayoutOutcome, PayoutReverted } from "./Payouts.ts"

/**
 * Sweeps on chain: one transaction of the chain's executor (which pays the gas) to the deposit
 * factory deploys the forwarders of several deposit addresses where needed and moves their whole
 * balances of a token (or of the chain's own coin) to the collection address. A sweep moves what is
 * there when it is mined, so sending one twice never moves anything twice. Deposits are named by
 * their {@link DepositSweep} (asset, payment and address: the address tells which factory made it).
 */
export class DepositSweeper extends Context.Service<DepositSweeper, {
  /** What the deposit address holds of the deposit's asset now. */
  readonly balance: (deposit: DepositSweep) => Effect.Effect<bigint, ChainUnavailable>
  /** Deposits of the same batch key may share one sweep (the same chain, asset and factory). */
  readonly batchOf: (deposit: DepositSweep) => string
  /**
   * Signs the sweep of `deposits` (one batch key) with the executor's next nonce and
   * hands it to `record`; broadcasts it only when `record` answers `true`, and answers it (else
   * none, nothing sent). `PayoutReverted` when it would revert; `ChainUnavailable` when the chain
   * cannot be reached (after a successful `record` too: the recorded sweep is broadcast by `resend`).
   */
  readonly send: (
    deposits: ReadonlyArray<DepositSweep>,
    record: (signed: SignedTransfer) => Effect.Effect<boolean>
  ) => Effect.Effect<Option.Option<SignedTransfer>, PayoutReverted | ChainUnavailable>
  /**
   * What the succeeded sweep `signed` moved to the collection address, per deposit address
   * (lower-case), as its transaction's logs say (a token's `Transfer` logs, the factory's `Swept`
   * logs for the chain's own coin).
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
