import { Context, type Effect, type Option } from "effect"
import type { MerchantId, PartnerId, PaymentId, PaymentLinkId } from "../ids/Ids.ts"
import type { LinkTotals, PaymentLink } from "../link/PaymentLink.ts"
import type { Cursor } from "../paging/Page.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Mode, Payment } from "../payment/Payment.ts"

/** Which links a list covers, newest first. */
export interface PaymentLinkQuery {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly merchantId?: MerchantId | undefined
  readonly after: Cursor | null
  readonly limit: number
}

/** A buyer's visit asking to pay: the payment to open unless the visit has one that can still be paid. */
export interface LinkVisit {
  readonly linkId: PaymentLinkId
  /** Chosen by the page for the visit (its cookie): the same token never opens a second live payment. */
  readonly token: string
  /** Payments that are paid, being paid, or may still be paid, allowed at once; `null`: no limit. */
  readonly capacity: number | null
  readonly payment: Payment
  readonly events: ReadonlyArray<OutboxEvent>
}

/**
 * What a visit got: its earlier payment (still payable, being paid or paid), the new one, or nothing
 * because the link was deactivated meanwhile or its capacity is taken.
 */
export type VisitOutcome =
  | { readonly _tag: "Existing"; readonly paymentId: PaymentId }
  | { readonly _tag: "Created"; readonly paymentId: PaymentId }
  | { readonly _tag: "Inactive" }
  | { readonly _tag: "Full" }

/** Payment link persistence. Infrastructure failures are defects. */
export class PaymentLinkRepository extends Context.Service<PaymentLinkRepository, {
  readonly insert: (link: PaymentLink) => Effect.Effect<void>
  readonly findById: (id: PaymentLinkId) => Effect.Effect<Option.Option<PaymentLink>>
  readonly list: (query: PaymentLinkQuery) => Effect.Effect<ReadonlyArray<PaymentLink>>
  /** Sets `active` (and `updatedAt`, Unix ms); answers the link as stored after. */
  readonly setActive: (id: PaymentLinkId, active: boolean, updatedAt: number) => Effect.Effect<Option.Option<PaymentLink>>
  /** The totals of each link. */
  readonly totals: (ids: ReadonlyArray<PaymentLinkId>) => Effect.Effect<ReadonlyMap<PaymentLinkId, LinkTotals>>
  /**
   * In one transaction that holds the link against every other visit: answers the visit's earlier
   * payment when it is paid, processing, or waits unexpired at `nowMillis`; else, when the link is
   * still active and fewer than `capacity` of its payments are in those states, stores the payment
   * with its events and records it as the visit's.
   */
  readonly openVisit: (visit: LinkVisit, nowMillis: number) => Effect.Effect<VisitOutcome>
}>()("@paygate/domain/PaymentLinkRepository") {}
