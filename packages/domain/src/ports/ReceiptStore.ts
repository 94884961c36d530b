import { Context, type Effect, type Option } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { PartnerId, PaymentId, ReceiptId } from "../ids/Ids.ts"
import type { Cursor } from "../paging/Page.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Mode, Payment } from "../payment/Payment.ts"
import type { ObservedTransfer, Receipt, ReceiptOutcome, ReceiptRefund } from "../receipt/Receipt.ts"

/** What recording a receipt did: wrote it, found it recorded already, or lost the payment's compare-and-set. */
export type RecordResult = "recorded" | "duplicate" | "stale"

/**
 * Which receipts a list covers: a partner's (in one mode: its payments' and the unmatched ones of its
 * payments' deposit addresses), or the operator's (the unmatched ones no partner owns).
 */
export interface ReceiptQuery {
  readonly owner: { readonly partnerId: PartnerId; readonly mode: Mode } | "operator"
  readonly paymentId?: PaymentId | undefined
  /** Outcomes to include; empty or unset means all. */
  readonly outcomes?: ReadonlyArray<ReceiptOutcome> | undefined
  /** Newest first. */
  readonly after: Cursor | null
  readonly limit: number
}

/**
 * Receipts: every transfer the chain watcher found arriving at a collection address, at most one
 * per (chain, transaction, log). Infrastructure failures are defects.
 */
export class ReceiptStore extends Context.Service<ReceiptStore, {
  /**
   * Records `receipt` together with the payment's next state (a compare-and-set, as
   * `PaymentRepository.update`) and `events`, in one transaction; the `completed` underpaid receipts
   * (those the new one completes) become `paid`. `duplicate`: a receipt of the same log exists
   * (nothing written); `stale`: the payment changed meanwhile, or a completed receipt is no longer
   * underpaid without a refund (nothing written). The ledger posts the arrival at `depositAddress`
   * (lower-case; `null`: the collection address) in the same transaction.
   */
  readonly record: (
    receipt: Receipt,
    next: Payment | null,
    events: ReadonlyArray<OutboxEvent>,
    completed: ReadonlyArray<ReceiptId>,
    depositAddress: string | null
  ) => Effect.Effect<RecordResult>
  readonly list: (query: ReceiptQuery) => Effect.Effect<ReadonlyArray<Receipt>>
  readonly find: (id: ReceiptId) => Effect.Effect<Option.Option<Receipt>>
  /**
   * Stores the receipt's refund if the stored one is at `version - 1` (none counts as version 0) and,
   * for a first refund, the receipt is neither `paid` (an underpaid receipt a later transfer completed
   * meanwhile) nor reversed, and no other receipt of the same transfer (read again after a
   * reorganisation) has a refund pending or completed; a `pending` refund becomes due now. With it,
   * once, the `gas` the refund's mined transaction cost the collection address. Answers whether it did.
   */
  readonly saveRefund: (id: ReceiptId, refund: ReceiptRefund, gas?: GasPaid) => Effect.Effect<boolean>
  /** Leases up to `limit` receipts whose pending refund is due, reversed or not (any number of workers share them). */
  readonly claimRefunds: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<ReceiptId>>
  /** Ends the lease; the refund is due again after `afterMillis`. */
  readonly releaseRefund: (id: ReceiptId, afterMillis: number) => Effect.Effect<void>
  /**
   * Keeps a transfer that could not be recorded, with why, until {@link resolveQuarantine}; answers
   * whether it is new (not already waiting: then its attempts go up).
   */
  readonly quarantine: (transfer: ObservedTransfer, reason: string) => Effect.Effect<boolean>
  /** Up to `limit` quarantined transfers of `chainId` not resolved yet, oldest first. */
  readonly quarantined: (chainId: string, limit: number) => Effect.Effect<ReadonlyArray<ObservedTransfer>>
  /** The quarantined transfer was recorded after all, or its block is no longer on the chain. */
  readonly resolveQuarantine: (transfer: ObservedTransfer, outcome: string) => Effect.Effect<void>
  /** The receipts of `chainId` not reversed, in blocks `fromBlock` to `toBlock`, in chain order. */
  readonly onChainIn: (chainId: string, fromBlock: number, toBlock: number) => Effect.Effect<ReadonlyArray<Receipt>>
  /**
   * Marks the receipt reversed at `reversedAt` (Unix milliseconds) together with the payment's next
   * state (a compare-and-set, `null` for none) and `events`, in one transaction. `duplicate`: it was
   * reversed already (nothing written); `stale`: the payment changed meanwhile (nothing written).
   * A reversed receipt's pending refund is never sent; a payment moved back to `processing` is due to
   * the executor at once.
   */
  readonly reverse: (
    id: ReceiptId,
    reversedAt: number,
    next: Payment | null,
    events: ReadonlyArray<OutboxEvent>
  ) => Effect.Effect<RecordResult>
}>()("@paygate/domain/ReceiptStore") {}
