import type { PaymentId, RefundId } from "../ids/Ids.ts"
import type { Payout, PayoutKind } from "../payout/Payout.ts"
import type { Refund } from "../refund/Refund.ts"

// The in-memory state of money going out: payouts, and the refunds they execute. Both repositories
// share it, so it lives apart from either.

/** The state behind the in-memory payout repository, exposed so tests can inspect it. */
export interface MemoryPayouts {
  /** By {@link payoutKey}. */
  readonly payouts: Map<string, Payout>
  /** Payments whose settlement was decided. */
  readonly decided: Set<PaymentId>
}

/** A fresh, empty payout store. */
export const makeMemoryPayouts = (): MemoryPayouts => ({ payouts: new Map(), decided: new Set() })

/** The key of a payout in {@link MemoryPayouts.payouts}. */
export const payoutKey = (paymentId: PaymentId, kind: PayoutKind, leg = 0): string => `${paymentId}/${kind}/${leg}`

/** A payment's payouts. */
export const payoutsOf = (store: MemoryPayouts, paymentId: PaymentId): ReadonlyArray<Payout> =>
  [...store.payouts.values()].filter((p) => p.paymentId === paymentId)

/** The state behind the in-memory refund repository, exposed so tests can inspect it. */
export interface MemoryRefunds {
  /** By refund id, in the order they were stored. */
  readonly refunds: Map<RefundId, Refund>
  /** The payouts refunds are executed by (shared with the payout repository). */
  readonly payouts: MemoryPayouts
}

/** A fresh, empty refund store. */
export const makeMemoryRefunds = (payouts: MemoryPayouts = makeMemoryPayouts()): MemoryRefunds => ({ refunds: new Map(), payouts })

/** A payment's refunds, oldest first. */
export const refundsOf = (store: MemoryRefunds, paymentId: PaymentId): ReadonlyArray<Refund> =>
  [...store.refunds.values()].filter((r) => r.paymentId === paymentId)

/** A payment's latest refund, if any. */
export const latestRefundOf = (store: MemoryRefunds, paymentId: PaymentId): Refund | undefined => refundsOf(store, paymentId).at(-1)
