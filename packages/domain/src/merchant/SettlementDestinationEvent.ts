import { Schema } from "effect"
import { EventId, PartnerId } from "../ids/Ids.ts"
import { Mode } from "../payment/Payment.ts"
import { CryptoSettlement } from "./CryptoSettlement.ts"

/** What happened to a settlement destination. */
export const SettlementDestinationChange = Schema.Literals(["added", "changed", "removed"])
/** A settlement destination change kind. */
export type SettlementDestinationChange = typeof SettlementDestinationChange.Type

/** The webhook event type of every settlement destination change. */
export const settlementDestinationChanged = "settlement_destination.changed"

/**
 * A partner-level outbox event, written in the same transaction as the settlement destination
 * change it reports: the owner learns at once that payments will go elsewhere (after the delay),
 * and can undo a change they did not make. It belongs to no payment.
 */
export class SettlementDestinationEvent extends Schema.Class<SettlementDestinationEvent>("paygate/SettlementDestinationEvent")({
  id: EventId,
  type: Schema.Literal(settlementDestinationChanged),
  partnerId: PartnerId,
  /** The merchant's mode: only endpoints of this mode receive it. */
  mode: Mode,
  /** The destination right after the change (right before it, when removed). */
  settlement: CryptoSettlement,
  change: SettlementDestinationChange,
  /** The account it pointed to before a `changed`; `null` for the other kinds. */
  previousDestination: Schema.NullOr(Schema.String),
  /** Unix seconds. */
  createdAt: Schema.Int
}) {}
