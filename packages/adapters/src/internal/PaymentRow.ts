/**
 * Payments and outbox events to and from their rows. Nested values (`checkout`, `commitment`,
 * the event payload) are stored as the domain's canonical JSON encoding (`Schema.toCodecJson`:
 * bigints as decimal strings), so every value decodes back exactly.
 *
 * @module
 */
import {
  isPaymentEvent,
  isSubscriptionEvent,
  OutboxEvent,
  Payment,
  SettlementDestinationEvent,
  SubscriptionEvent,
  WebhookEvent
} from "@paygate/domain"
import { Option, Schema } from "effect"
import { fromJsonColumn, jsonText, millisToSeconds, millisToSecondsOrNull, secondsToMillis, toInt } from "./Rows.ts"

// Rows are our own: written only from valid payments and events. Reading and writing them parses
// their structure but skips the checks (brands, patterns, ranges) the values passed when made.
const ours = { disableChecks: true } as const

const PaymentJson = Schema.toCodecJson(Payment)
const encodePayment = Schema.encodeSync(PaymentJson, ours)
const decodePayment = Schema.decodeUnknownSync(PaymentJson, ours)

const encodeStage = Schema.encodeSync(Schema.toCodecJson(OutboxEvent.fields.stage), ours)
const encodeDestinationEvent = Schema.encodeSync(Schema.toCodecJson(SettlementDestinationEvent), ours)
const encodeSubscriptionEvent = Schema.encodeSync(Schema.toCodecJson(SubscriptionEvent), ours)

/** A payment's canonical JSON (what its nested columns and event snapshots hold). */
interface EncodedPayment {
  readonly [field: string]: unknown
  readonly value: string
  readonly checkout: unknown
  readonly commitment: unknown
  readonly hold?: unknown
}

// Encoded once per payment: an insert writes both the payment's columns and its event's snapshot of it.
const encoded = new WeakMap<Payment, EncodedPayment>()
const encodePaymentOnce = (payment: Payment): EncodedPayment => {
  let json = encoded.get(payment)
  if (json === undefined) {
    json = encodePayment(payment) as EncodedPayment
    encoded.set(payment, json)
  }
  return json
}

/** The columns of `payments`, as bound on insert. */
export interface PaymentColumns {
  readonly id: string
  readonly partner_id: string
  readonly merchant_id: string
  readonly mode: string
  readonly reference_id: string
  readonly currency: string
  /** Decimal text, bound to `numeric(20,0)`. */
  readonly value: string
  readonly status: string
  readonly state_version: number
  /** JSON text or `NULL`. */
  readonly checkout: string | null
  readonly expires_at: number
  readonly commitment: string | null
  readonly cancelled_reason: string | null
  readonly cancelled_at: number | null
  readonly created_at: number
  readonly updated_at: number
  readonly link_id: string | null
  /** JSON text or `NULL`. */
  readonly hold: string | null
}

/** A payment's column values (timestamps in milliseconds). */
export const paymentColumns = (payment: Payment): PaymentColumns => {
  const json = encodePaymentOnce(payment)
  return {
    id: payment.id,
    partner_id: payment.partnerId,
    merchant_id: payment.merchantId,
    mode: payment.mode,
    reference_id: payment.referenceId,
    currency: payment.currency,
    value: json.value,
    status: payment.status,
    state_version: payment.stateVersion,
    checkout: jsonText(json.checkout),
    expires_at: secondsToMillis(payment.expiresAt),
    commitment: jsonText(json.commitment),
    cancelled_reason: payment.cancelledReason,
    cancelled_at: payment.cancelledAt === null ? null : secondsToMillis(payment.cancelledAt),
    created_at: payment.createdAt,
    updated_at: payment.updatedAt,
    link_id: payment.linkId ?? null,
    hold: json.hold === undefined ? null : jsonText(json.hold)
  }
}

/** The columns selected for a payment, in order. */
export const paymentSelect =
  "id, partner_id, merchant_id, mode, reference_id, currency, value::text AS value, status, state_version, checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at, link_id, hold"

/** Decodes a `payments` row selected with {@link paymentSelect}; a row that is not a valid payment is a defect. */
export const paymentFromRow = (row: Record<string, unknown>): Payment =>
  decodePayment({
    id: row.id,
    partnerId: row.partner_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    referenceId: row.reference_id,
    currency: row.currency,
    value: row.value,
    status: row.status,
    stateVersion: toInt(row.state_version),
    checkout: fromJsonColumn(row.checkout),
    expiresAt: millisToSeconds(row.expires_at),
    commitment: fromJsonColumn(row.commitment),
    cancelledReason: row.cancelled_reason,
    cancelledAt: millisToSecondsOrNull(row.cancelled_at),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at),
    ...(row.link_id === null || row.link_id === undefined ? {} : { linkId: row.link_id }),
    ...(row.hold === null || row.hold === undefined ? {} : { hold: fromJsonColumn(row.hold) })
  })

/** The columns of `outbox_events`, as bound on insert. */
export interface OutboxColumns {
  readonly id: string
  readonly type: string
  readonly partner_id: string
  /** `null` for an event that is not a payment's. */
  readonly payment_id: string | null
  /** The whole event as JSON text. */
  readonly payload: string
  readonly created_at: number
}

/** An event's column values; `payload` is the event itself (payment or subscription snapshot included). */
export const outboxColumns = (event: WebhookEvent): OutboxColumns =>
  isPaymentEvent(event) ? paymentEventColumns(event) : {
    id: event.id,
    type: event.type,
    partner_id: event.partnerId,
    payment_id: null,
    payload: JSON.stringify(isSubscriptionEvent(event) ? encodeSubscriptionEvent(event) : encodeDestinationEvent(event)),
    created_at: secondsToMillis(event.createdAt)
  }

const paymentEventColumns = (event: OutboxEvent): OutboxColumns => ({
  id: event.id,
  type: event.type,
  partner_id: event.partnerId,
  payment_id: event.paymentId,
  // The event's canonical JSON (its fields in schema order), the payment's encoding shared with its columns.
  payload: JSON.stringify({
    id: event.id,
    type: event.type,
    partnerId: event.partnerId,
    paymentId: event.paymentId,
    payment: encodePaymentOnce(event.payment),
    stage: encodeStage(event.stage),
    createdAt: event.createdAt
  }),
  created_at: secondsToMillis(event.createdAt)
})

const readEvent = Schema.decodeUnknownOption(Schema.toCodecJson(WebhookEvent), ours)

/**
 * Decodes the `payload` column of an outbox row, or none when this version cannot read it: an event
 * of a type it does not know, written by a newer version sharing the database during an upgrade.
 */
export const readableEvent = (payload: unknown): Option.Option<WebhookEvent> => {
  try {
    return readEvent(fromJsonColumn(payload))
  } catch {
    return Option.none()
  }
}

/**
 * How long an event this version cannot read is set aside (its lease, or its delivery's): long enough
 * not to fill every claim, short enough that a version that reads it soon takes it.
 */
export const unreadableEventHoldMillis = 10 * 60_000
