/**
 * The hand-written webhook drain the worker is measured against: a minimal outbox → webhook loop
 * with the `postgres` client (porsager's) and `fetch`, no framework, no leases, no retry queue.
 *
 * `LOOPS` loops, each on its own connection, repeat until the outbox is empty: in one transaction,
 * take the oldest `BATCH` unprocessed outbox events with `FOR UPDATE SKIP LOCKED`, `POST` each to
 * its partner's endpoint (all of the batch at once, Standard Webhooks signature by hand), then
 * insert one delivery row per event with the outcome (the service's `webhook_deliveries` table)
 * and mark the events processed, and commit. At most `LOOPS × BATCH` requests are in flight, the
 * worker's bound with the bench's endpoints (see `webhooks.ts`).
 *
 * Environment: `DATABASE_URL`, `ENDPOINTS` (JSON: `[{ id, partnerId, url, secret }]`, one endpoint
 * per partner; secrets in plaintext, read once, where the worker decrypts stored ones), `LOOPS`,
 * `BATCH`. Exits when the outbox is empty.
 */
import { createHmac, randomBytes } from "node:crypto"
import postgres from "postgres"

interface Endpoint {
  readonly id: string
  readonly partnerId: string
  readonly url: string
  readonly secret: string
}

const url = process.env.DATABASE_URL
const endpoints = JSON.parse(process.env.ENDPOINTS ?? "[]") as ReadonlyArray<Endpoint>
const loops = Number(process.env.LOOPS ?? "4")
const batch = Number(process.env.BATCH ?? "8")
if (url === undefined || endpoints.length === 0) {
  process.stderr.write("webhook baseline: DATABASE_URL and ENDPOINTS are required\n")
  process.exit(2)
}

const sql = postgres(url, { max: loops, onnotice: () => {} })
const byPartner = new Map(endpoints.map((e) => [e.partnerId, { ...e, key: Buffer.from(e.secret.replace(/^whsec_/, ""), "base64") }]))

interface OutboxRow {
  readonly id: string
  readonly type: string
  readonly partner_id: string
  readonly payload: { readonly createdAt: number; readonly payment: unknown; readonly stage: unknown }
}

const deliver = async (event: OutboxRow) => {
  const endpoint = byPartner.get(event.partner_id)!
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    apiVersion: "2026-02-18",
    createdAt: event.payload.createdAt,
    data: { payment: event.payload.payment, stage: event.payload.stage }
  })
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = createHmac("sha256", endpoint.key).update(`${event.id}.${timestamp}.${body}`).digest("base64")
  const started = performance.now()
  let status: number | null = null
  try {
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": event.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": `v1,${signature}`
      },
      body,
      signal: AbortSignal.timeout(15_000)
    })
    await response.arrayBuffer()
    status = response.status
  } catch {
    status = null
  }
  return { event, endpoint, status, durationMs: Math.round(performance.now() - started) }
}

const loop = async (): Promise<void> => {
  for (;;) {
    const drained = await sql.begin(async (tx) => {
      const events = await tx<Array<OutboxRow>>`SELECT id, type, partner_id, payload FROM outbox_events
        WHERE processed_at IS NULL ORDER BY created_at, id LIMIT ${batch} FOR UPDATE SKIP LOCKED`
      if (events.length === 0) return true
      const sent = await Promise.all(events.map(deliver))
      const now = Date.now()
      const rows = sent.map((s) => {
        const ok = s.status !== null && s.status >= 200 && s.status <= 299
        return {
          id: `dlv_${now.toString(36)}${randomBytes(10).toString("hex")}`,
          event_id: s.event.id,
          event_type: s.event.type,
          endpoint_id: s.endpoint.id,
          redelivery: false,
          status: ok ? "succeeded" : "pending",
          attempts: 1,
          next_attempt_at: ok ? null : now + 5_000,
          last_status_code: s.status,
          last_duration_ms: s.durationMs,
          created_at: now,
          updated_at: now
        }
      })
      await tx`INSERT INTO webhook_deliveries ${tx(rows)}`
      await tx`UPDATE outbox_events SET processed_at = ${now} WHERE id IN ${tx(events.map((e) => e.id))}`
      return false
    })
    if (drained) return
  }
}

await Promise.all(Array.from({ length: loops }, loop))
await sql.end()
