/**
 * What the raw baseline (`baseline.ts`) and the framework floor (`floor.ts`) write and answer, and
 * their statements: the service's rows (same tables, same shape) and answers, nothing else. Both
 * apps use these, so they differ only in the HTTP stack and the database client around them.
 */
import { createHash, randomBytes } from "node:crypto"

/** `DATABASE_URL`, `PARTNER_ID` and `MERCHANT_ID` of a bench app; exits when one is missing. */
export const appEnvironment = (app: string) => {
  const { DATABASE_URL: url, PARTNER_ID: partnerId, MERCHANT_ID: merchantId } = process.env
  if (url === undefined || partnerId === undefined || merchantId === undefined) {
    process.stderr.write(`${app}: DATABASE_URL, PARTNER_ID and MERCHANT_ID are required\n`)
    process.exit(2)
  }
  return { url, partnerId, merchantId }
}

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** A resource id shaped like the service's (prefix, time, random). */
export const newId = (prefix: string) => {
  const bytes = randomBytes(16)
  let body = ""
  for (const byte of bytes) body += alphabet[byte & 31]
  return `${prefix}_${Date.now().toString(32).toUpperCase()}${body}`
}

/** The body of a create (the service's `CreatePaymentRequest`, the fields the loads send). */
export interface CreateBody {
  readonly amount: { readonly unit: string; readonly value: string }
  readonly referenceId: string
}

const lifetimeMillis = 15 * 60 * 1000

/** A new payment row of `merchantId` (sandbox). */
export const paymentRow = (partnerId: string, merchantId: string, body: CreateBody) => {
  const now = Date.now()
  return {
    id: newId("pay"),
    partner_id: partnerId,
    merchant_id: merchantId,
    mode: "sandbox",
    reference_id: body.referenceId,
    currency: body.amount.unit.slice(-3),
    value: body.amount.value,
    status: "requires_action",
    state_version: 1,
    expires_at: now + lifetimeMillis,
    created_at: now,
    updated_at: now
  }
}

export type PaymentRow = ReturnType<typeof paymentRow>

/** The create response (the service's `CreatePaymentResponse` fields the loads read). */
export const createdResponse = (p: PaymentRow) => ({
  paymentId: p.id,
  status: "pending",
  expiresAt: Math.floor(p.expires_at / 1000),
  isFinal: false,
  pollInMs: 2000
})

/**
 * The `payment.created` outbox event's payload, exactly as the service stores it: the systems share
 * one database, and the service's worker reads these events like its own (an event it cannot read
 * would be set aside and walked over by every claim, a cost no real deployment has).
 */
export const createdEvent = (eventId: string, p: PaymentRow) => ({
  id: eventId,
  type: "payment.created",
  stage: {},
  payment: {
    id: p.id,
    mode: p.mode,
    value: p.value,
    status: p.status,
    checkout: null,
    currency: p.currency,
    createdAt: p.created_at,
    expiresAt: Math.floor(p.expires_at / 1000),
    partnerId: p.partner_id,
    updatedAt: p.updated_at,
    commitment: null,
    merchantId: p.merchant_id,
    cancelledAt: null,
    referenceId: p.reference_id,
    stateVersion: p.state_version,
    cancelledReason: null
  },
  createdAt: Math.floor(p.created_at / 1000),
  partnerId: p.partner_id,
  paymentId: p.id
})

/** The status response of a payment row (`requires_action` past its expiry reads as expired). */
export const statusResponse = (row: { readonly status: string; readonly expires_at: string | number }) => {
  const expired = row.status === "requires_action" && Number(row.expires_at) <= Date.now()
  const status = expired ? "expired" : row.status === "requires_action" ? "pending" : row.status
  return { status, isFinal: status !== "pending" && status !== "processing" }
}

/** The request body's digest, as the idempotency claim stores it. */
export const bodySha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** Keys expire after 24 hours, as the service's. */
export const idempotencyTtlMillis = 86_400_000

/** The payment columns the service reads for a status. */
export const statusSelect = `SELECT id, partner_id, merchant_id, mode, reference_id, currency, value::text AS value, status,
  state_version, checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at
  FROM payments WHERE id = $1`

/** The service's idempotency claim (a key past its expiry is taken over); answers a row when claimed. Parameters: partner, route, key, digest, now, expiry. */
export const claimKey = `INSERT INTO idempotency_keys AS k (partner_id, route, key, body_sha256, status_code, response_body, created_at, expires_at)
  VALUES ($1, $2, $3, $4, NULL, NULL, $5, $6)
  ON CONFLICT (partner_id, route, key) DO UPDATE SET body_sha256 = EXCLUDED.body_sha256, status_code = NULL, response_body = NULL,
    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= EXCLUDED.created_at
  RETURNING 1 AS claimed`

const paymentColumns = `payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status, state_version,
    checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at)`

/** One payment `INSERT`; parameters: {@link paymentValues}. */
export const insertPayment = `INSERT INTO ${paymentColumns}
  VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9, NULL, $10, NULL, NULL, NULL, $11, $12)`

/** The parameters of a payment `INSERT`, in column order. */
export const paymentValues = (p: PaymentRow) => [
  p.id, p.partner_id, p.merchant_id, p.mode, p.reference_id, p.currency, p.value, p.status, p.state_version, p.expires_at,
  p.created_at, p.updated_at
]

/**
 * The service's second create statement: the payment, the stored response and the outbox event in
 * one. Parameters: {@link paymentValues}, then the response, partner, route, key, event id and payload.
 */
export const insertPaymentResponseEvent = `WITH payment AS (${insertPayment}),
  completion AS (
    UPDATE idempotency_keys SET status_code = 200, response_body = $13
    WHERE partner_id = $14 AND route = $15 AND key = $16 AND status_code IS NULL)
  INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
  VALUES ($17, 'payment.created', $2, $1, $18::jsonb, $11)`
