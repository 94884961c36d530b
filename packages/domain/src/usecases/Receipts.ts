import { Context, Effect, Layer, Schema } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"
import { PaymentId } from "../ids/Ids.ts"
import { type Page, type PageRequest, toPage } from "../paging/Page.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import type { Receipt, ReceiptOutcome } from "../receipt/Receipt.ts"
import type { PartnerAccess } from "./Merchants.ts"

/** A receipt list request, decoded: outcomes (none: all), an optional payment, the page. */
export interface ListReceiptsInput {
  readonly outcomes: ReadonlyArray<ReceiptOutcome>
  readonly paymentId?: string | undefined
  readonly page: PageRequest
}

const isPaymentId = Schema.is(PaymentId)

/**
 * The partner's view of what the chain watcher recorded (`GET /v1/receipts`), newest first: the
 * receipts matched to its payments in the key's mode, or, asked with the single outcome
 * `unmatched`, the transfers no payment claims that reached its payments' deposit addresses (a
 * token the payment was not quoted in). Unmatched transfers into the shared collection addresses
 * carry no reference the service handed out: they are the operator's, and no partner sees them.
 */
export class Receipts extends Context.Service<Receipts, {
  readonly list: (access: PartnerAccess, input: ListReceiptsInput) => Effect.Effect<Page<Receipt>, InvalidParams>
}>()("@paygate/domain/Receipts") {
  /** Receipts over the store in context. */
  static readonly layer = Layer.effect(
    Receipts,
    Effect.gen(function*() {
      const store = yield* ReceiptStore

      const list = Effect.fn("Receipts.list")(function*(access: PartnerAccess, input: ListReceiptsInput) {
        const unmatched = input.outcomes.includes("unmatched")
        if (unmatched && (input.outcomes.length > 1 || input.paymentId !== undefined)) {
          return yield* new InvalidParams({
            message: "outcome=unmatched lists the transfers no payment claims: it cannot be combined with other outcomes or paymentId."
          })
        }
        if (input.paymentId !== undefined && !isPaymentId(input.paymentId)) return { data: [], nextCursor: null }
        const rows = yield* store.list({
          owner: { partnerId: access.partnerId, mode: access.mode },
          paymentId: input.paymentId as PaymentId | undefined,
          outcomes: input.outcomes,
          after: input.page.after,
          limit: input.page.limit + 1
        })
        // Paged in recording order, newest first.
        const page = toPage(rows.map((receipt) => ({ receipt, id: receipt.id, createdAt: receipt.recordedAt })), input.page.limit)
        return { data: page.data.map((row) => row.receipt), nextCursor: page.nextCursor }
      })

      return Receipts.of({ list })
    })
  )
}
