import { Context, type Effect, type Option, Schema } from "effect"
import type { SignedTransfer } from "../payout/Payout.ts"
import type { ChainOutcome } from "./ChainGateway.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"

/** An ERC-20 transfer from the collection address of the asset's chain. */
export interface PayoutTransfer {
  /** CAIP-19 token. */
  readonly asset: string
  /** CAIP-10 account on the asset's chain. */
  readonly recipient: string
  /** Token base units. */
  readonly value: bigint
}

/**
 * Where a payout's transaction stands, with the chain's required confirmations applied:
 *
 * - `pending`, `unknown` (the chain could not be asked), `succeeded` (it paid the recipient): as
 *   for payments.
 * - `reverted`: included and reverted: nothing moved, a new transfer may be sent.
 * - `dropped`: not included, and it never can be: the collection address used its nonce for
 *   another transaction. Nothing moved; a new transfer may be sent.
 * - `failed`: included without reverting, yet paying nothing to the recipient. Never retried:
 *   tokens may have moved elsewhere.
 */
export type PayoutOutcome = ChainOutcome | "reverted"

/** The transfer would revert (e.g. the collection address lacks the tokens): nothing was signed. */
export class PayoutReverted extends Schema.TaggedError<PayoutReverted>()("PayoutReverted", {
  message: Schema.String
}) {}

/**
 * Payouts on chain: transfers of tokens held at a chain's collection address, sent by that
 * address (its key signs them) with one nonce sequence per address. A chain whose collection key
 * is not configured cannot pay out: its transfers fail with `ChainUnavailable` and wait.
 */
export class Payouts extends Context.Service<Payouts, {
  /**
   * Signs the transfer with the collection address's next nonce and hands it to `record` before
   * broadcasting it: only when `record` answers `true` (it stored the transfer) is it broadcast,
   * and it answers the transfer; else nothing is sent and it answers none. Fails with
   * `PayoutReverted` when the transfer would revert, `ChainUnavailable` when the chain cannot be
   * reached (after a successful `record` too: the recorded transfer is then broadcast by `resend`).
   */
  readonly send: (
    transfer: PayoutTransfer,
    record: (signed: SignedTransfer) => Effect.Effect<boolean>
  ) => Effect.Effect<Option.Option<SignedTransfer>, PayoutReverted | ChainUnavailable>
  /** Broadcasts a recorded transfer again, byte for byte; a transfer the chain already has is fine. */
  readonly resend: (asset: string, signed: SignedTransfer) => Effect.Effect<void, ChainUnavailable>
  /** Where a recorded transfer stands. */
  readonly observe: (transfer: PayoutTransfer, signed: SignedTransfer) => Effect.Effect<PayoutOutcome>
}>()("@paygate/domain/Payouts") {}
