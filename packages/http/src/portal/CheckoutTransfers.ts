import { type Amount, AssetCatalog, ExplorerLinks, type Payment, ReceiptStore, refundableValue, shortfall, tokenAmount } from "@paygate/domain"
import { Effect } from "effect"

/**
 * A transfer the chain watcher recorded against a payment, as the checkout tells the buyer about
 * it: what it did (`paid`, `overpaid`: the excess is refundable; `underpaid`: it counts, and the
 * buyer may send the rest, its `shortfall`; `late`: the payment no longer waited), the amount that
 * arrived, and the transaction.
 */
export interface CheckoutTransfer {
  readonly outcome: "paid" | "overpaid" | "underpaid" | "late"
  readonly amount: Amount
  /** Token base units still missing (underpaid), else "0". */
  readonly shortfall: string
  /** Token base units the payment did not keep (refundable), else "0". */
  readonly refundable: string
  readonly hash: string
  readonly explorerUrl: string | null
}

/** The most transfers a checkout lists (newest first): a buyer sends one or two. */
const maxTransfers = 20

/**
 * The transfers recorded against a payment, newest first (in tokens the service still accepts),
 * over the services in context.
 */
export const makeCheckoutTransfers = Effect.gen(function*() {
  const receipts = yield* ReceiptStore
  const catalog = yield* AssetCatalog
  const explorer = yield* ExplorerLinks
  return (payment: Payment) =>
    Effect.map(
      receipts.list({ owner: { partnerId: payment.partnerId, mode: payment.mode }, paymentId: payment.id, after: null, limit: maxTransfers }),
      (recorded) =>
        recorded.flatMap((receipt): ReadonlyArray<CheckoutTransfer> => {
          const asset = catalog.asset(receipt.asset)
          if (asset === undefined || receipt.outcome === "unmatched") return []
          return [{
            outcome: receipt.outcome,
            amount: tokenAmount(asset, receipt.value.toString()),
            shortfall: shortfall(receipt).toString(),
            refundable: refundableValue(receipt).toString(),
            hash: receipt.txHash,
            explorerUrl: explorer.transaction(receipt.chainId, receipt.txHash)
          }]
        })
    )
})
