import type { GasPaid } from "../gas/GasPaid.ts"
import type { Receipt } from "../receipt/Receipt.ts"

/**
 * The ledger's accounts, per token (CAIP-19 `asset`, whose chain it names) within one mode:
 *
 * - `collection`: what the chain's collection address holds; `deposit`: what a deposit address holds.
 * - `merchant`: what is owed to a merchant (credited when its payment's transfer arrives, debited
 *   when it leaves as a settlement or a refund).
 * - `refund_claim`: what is owed back to a buyer (`address`, the sender): a late, underpaid or
 *   overpaid transfer's refundable part.
 * - `unmatched`: an unmatched receipt, owed to the operator until it is refunded to its sender.
 * - `opening`: the operator's equity: what an address held before the ledger saw it (its opening balance).
 * - `signer`: the native asset a signer of the service (`address`) holds for gas; `gas_expense`:
 *   the operator's gas spent, per native asset.
 */
export type LedgerAccount =
  | { readonly kind: "collection"; readonly asset: string }
  | { readonly kind: "deposit"; readonly asset: string; readonly address: string }
  | { readonly kind: "merchant"; readonly asset: string; readonly partnerId: string; readonly merchantId: string }
  | { readonly kind: "refund_claim" | "unmatched"; readonly asset: string; readonly address: string; readonly partnerId: string | null }
  | { readonly kind: "opening"; readonly asset: string }
  | { readonly kind: "signer"; readonly asset: string; readonly address: string }
  | { readonly kind: "gas_expense"; readonly asset: string }

/** One leg of a posting: token base units, positive for a debit, negative for a credit. */
export interface LedgerEntry {
  readonly account: LedgerAccount
  readonly amount: bigint
}

/** Where a transfer arrived: the collection address, or a deposit address (lower-case). */
export type Arrival = { readonly kind: "collection" } | { readonly kind: "deposit"; readonly address: string }

/** `debit` up and `credit` down by `value`: nothing for zero. */
const transfer = (debit: LedgerAccount, credit: LedgerAccount, value: bigint): ReadonlyArray<LedgerEntry> =>
  value === 0n ? [] : [{ account: debit, amount: value }, { account: credit, amount: -value }]

const holder = (address: string) => address.slice(address.lastIndexOf(":") + 1).toLowerCase()

/** What is owed back to a receipt's sender: an unmatched receipt's own account, else a refund claim. */
export const claimOf = (receipt: Receipt): LedgerAccount => ({
  kind: receipt.outcome === "unmatched" ? "unmatched" : "refund_claim",
  asset: receipt.asset,
  address: holder(receipt.from),
  partnerId: receipt.partnerId
})

/**
 * A transfer's arrival: the address it reached is debited; the merchant is credited what its
 * payment kept (`merchantId`, the matched payment's merchant), and the rest is owed back to the
 * sender (an unmatched receipt: owed to the operator until refunded). The underpaid receipts it
 * completes (`completed`) move from their senders' claims to the merchant.
 */
export const receivedPostings = (
  receipt: Receipt,
  at: Arrival,
  merchantId: string | null,
  completed: ReadonlyArray<Receipt> = []
): ReadonlyArray<LedgerEntry> => {
  const address: LedgerAccount = at.kind === "collection"
    ? { kind: "collection", asset: receipt.asset }
    : { kind: "deposit", asset: receipt.asset, address: at.address.toLowerCase() }
  const kept = receipt.outcome === "paid"
    ? receipt.value
    : receipt.outcome === "overpaid"
    ? receipt.expectedValue ?? 0n
    : 0n
  if (kept > 0n && (merchantId === null || receipt.partnerId === null)) {
    throw new Error(`receipt ${receipt.id} credits a merchant but names none`)
  }
  const merchant: LedgerAccount | null = merchantId === null || receipt.partnerId === null
    ? null
    : { kind: "merchant", asset: receipt.asset, partnerId: receipt.partnerId, merchantId }
  return [
    { account: address, amount: receipt.value },
    ...(merchant === null || kept === 0n ? [] : [{ account: merchant, amount: -kept }]),
    ...(receipt.value - kept === 0n ? [] : [{ account: claimOf(receipt), amount: -(receipt.value - kept) }]),
    ...completed.flatMap((part) => (merchant === null ? [] : transfer(claimOf(part), merchant, part.value)))
  ]
}

/** A payout (a settlement, or a refund's leg) that left the collection address: the merchant is paid. */
export const paidOutPostings = (
  payout: { readonly asset: string; readonly value: bigint },
  partnerId: string,
  merchantId: string
): ReadonlyArray<LedgerEntry> =>
  transfer({ kind: "merchant", asset: payout.asset, partnerId, merchantId }, { kind: "collection", asset: payout.asset }, payout.value)

/** A receipt's refund that left the collection address: its sender's claim is paid. */
export const receiptRefundPostings = (receipt: Receipt, value: bigint): ReadonlyArray<LedgerEntry> =>
  transfer(claimOf(receipt), { kind: "collection", asset: receipt.asset }, value)

/** A sweep that reached the collection address: what it moved from each deposit address (`moved`, lower-case addresses). */
export const sweptPostings = (
  asset: string,
  moved: ReadonlyArray<{ readonly address: string; readonly value: bigint }>
): ReadonlyArray<LedgerEntry> =>
  moved.flatMap(({ address, value }) =>
    transfer({ kind: "collection", asset }, { kind: "deposit", asset, address: address.toLowerCase() }, value)
  )

/** What an address held beyond the ledger when the ledger was opened: the address is debited, the operator's equity credited. */
export const openingPostings = (asset: string, at: Arrival, value: bigint): ReadonlyArray<LedgerEntry> =>
  transfer(
    at.kind === "collection" ? { kind: "collection", asset } : { kind: "deposit", asset, address: at.address.toLowerCase() },
    { kind: "opening", asset },
    value
  )

/** Gas the service paid: its signer's native balance credited, the operator's gas expense debited. */
export const gasPostings = (gas: GasPaid): ReadonlyArray<LedgerEntry> =>
  transfer({ kind: "gas_expense", asset: gas.asset }, { kind: "signer", asset: gas.asset, address: gas.payer.toLowerCase() }, gas.amount)

/** Whether `entries` sum to zero in every asset. */
export const balanced = (entries: ReadonlyArray<LedgerEntry>): boolean => {
  const sums = new Map<string, bigint>()
  for (const { account, amount } of entries) sums.set(account.asset, (sums.get(account.asset) ?? 0n) + amount)
  return [...sums.values()].every((sum) => sum === 0n)
}
