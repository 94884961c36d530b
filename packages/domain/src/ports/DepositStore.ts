import type { GasPaid } from "../gas/GasPaid.ts"
import { Context, type Effect } from "effect"
import type { DepositKey, DepositSweep, SweptAmount } from "../deposit/DepositSweep.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { SignedTransfer } from "../payout/Payout.ts"

/** A payment's deposit address on one chain, handed out by the gateway. */
export interface DepositAddress {
  /** CAIP-2 chain. */
  readonly chainId: string
  /** Lower-case address. */
  readonly address: string
  readonly paymentId: PaymentId
  /** Unix milliseconds when it was first handed out. */
  readonly createdAt: number
}

/**
 * Deposit addresses handed out, and the sweeps of what arrives at them (a queue with leases, like
 * the payouts'). Database failures are defects.
 */
export class DepositStore extends Context.Service<DepositStore, {
  /**
   * Records the address (once: a repeated hand-out keeps the first record); answers the payment's
   * address on that chain as recorded (lower-case): an earlier one, made by a factory since
   * replaced, stays the payment's.
   */
  readonly ensure: (deposit: DepositAddress) => Effect.Effect<string>
  /**
   * The addresses of `chainId` the watcher follows: those not swept yet (nothing arrived, or not all
   * of it swept), and those handed out or last swept at or after `sinceMillis`.
   */
  readonly watched: (chainId: string, sinceMillis: number) => Effect.Effect<ReadonlyArray<DepositAddress>>
  /** A transfer of `asset` arrived at the deposit: its sweep is due (again; marking twice costs at most a sweep that moves nothing). */
  readonly markDue: (key: DepositKey) => Effect.Effect<void>
  /** Leases up to `limit` due sweeps for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<DepositSweep>>
  /**
   * Records `signed` as the sweep of `sweeps` (each at the `markedVersion` read), unless one of
   * them has a sweep recorded meanwhile; answers whether it recorded (all or nothing).
   */
  readonly recordSweep: (sweeps: ReadonlyArray<DepositSweep>, signed: SignedTransfer) => Effect.Effect<boolean>
  /**
   * The sweep `txHash` succeeded: every deposit it covered is swept up to the version it covered,
   * and the ledger moves what it `moved` from each deposit address to the collection address; the
   * `gas` the service paid for it is recorded with it.
   */
  readonly swept: (txHash: string, moved: ReadonlyArray<SweptAmount>, gas?: GasPaid) => Effect.Effect<void>
  /** Nothing is left to sweep at `sweep` as read (its balance is zero): swept up to its `markedVersion`. */
  readonly nothingLeft: (sweep: DepositSweep) => Effect.Effect<void>
  /** The sweep `txHash` moved nothing (reverted, dropped): its deposits are due for a new one; a mined one's `gas` is recorded. */
  readonly abandon: (txHash: string, reason: string, gas?: GasPaid) => Effect.Effect<void>
  /** Ends the lease on a deposit; its next check is due `afterMillis` from now. */
  readonly release: (key: DepositKey, afterMillis: number) => Effect.Effect<void>
}>()("@paygate/domain/DepositStore") {}
