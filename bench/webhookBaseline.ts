/**
 * The hand-written webhook drain the worker is measured against: a minimal outbox → webhook loop
 * with node-postgres (`pg`) and `fetch`, no framework, no leases, no retry queue. Each request
 * has the worker's time limit (15 s); a failed one is recorded `pending` with a retry it never makes.
 *
 * `LOOPS` loops, each on its own connection, repeat until the outbox is empty: in one transaction,
 * take the oldest `BATCH` unprocessed outbox events with `FOR UPDATE SKIP LOCKED`, `POST` each to
 * its partner's endpoint (all of the batch at once, Standard Webhooks signature by hand), then
 * insert one delivery row per event with the outcome (the service's `webhook_deliveries` table)
 * and mark the events processed, and commit. At most `LOOPS × BATCH` requests are in flight, the
 * worker's bound with the bench's endpoints (see `webhooks.ts`).
 *
 * With `BY_ENDPOINT=1` (the backlog, where one endpoint is slow: a batch waits for its slowest
 * answer, so a global loop would hold every endpoint behind the slow one), one loop per endpoint
 * drains its partner's events the same way, `BATCH` at a time, oldest first (a cursor per
 * partner, so no claim walks the events already sent), sharing a pool of `LOOPS` connections: at
 * most `BATCH` requests in flight per endpoint and `LOOPS × BATCH` in all. It runs until every
 * partner's events are sent.
 *
 * Environment: `DATABASE_URL`, `ENDPOINTS` (JSON: `[{ id, partnerId, url, secret }]`, one endpoint
 * per partner; secrets in plaintext, read once, where the worker decrypts stored ones), `LOOPS`,
 * `BATCH`, `BY_ENDPOINT`. Exits when the outbox is empty.
 */
import { createHmac, randomBytes } from "node:crypto"
import pg from "pg"

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
const byEndpoint = process.env.BY_ENDPOINT === "1"
if (url === undefined || endpoints.length === 0) {
  process.stderr.write("webhook baseline: DATABASE_URL and ENDPOINTS are required\n")
  process.exit(2)
}

const pool = new pg.Pool({ connectionString: url, max: loops })
const byPartner = new Map(endpoints.map((e) => [e.partnerId, { ...e, key: Buffer.from(e.secret.replace(/^whsec_/, ""), "base64") }]))

interface OutboxRow {
  readonly id: string
  readonly created_at: string
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

const claim = `SELECT id, type, partner_id, payload, created_at FROM outbox_events
  WHERE processed_at IS NULL ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`
const claimOfPartner = `SELECT id, type, partner_id, payload, created_at FROM outbox_events
  WHERE partner_id = $2 AND (created_at, id) > ($3::bigint, $4::text) AND processed_at IS NULL
  ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`
// One row per element of the arrays (one statement, prepared once, for any batch size).
const record = `INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint_id, redelivery, status, attempts,
    next_attempt_at, last_status_code, last_duration_ms, created_at, updated_at)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[], $7::integer[], $8::bigint[],
    $9::integer[], $10::integer[], $11::bigint[], $12::bigint[])`
const markProcessed = `UPDATE outbox_events SET processed_at = $1 WHERE id = ANY($2::text[])`

/** Delivers a claimed batch and records it (in the caller's transaction). */
const deliverBatch = async (client: pg.PoolClient, events: ReadonlyArray<OutboxRow>) => {
  const sent = await Promise.all(events.map(deliver))
  const now = Date.now()
  const ok = sent.map((s) => s.status !== null && s.status >= 200 && s.status <= 299)
  await client.query({
    name: "record",
    text: record,
    values: [
      sent.map(() => `dlv_${now.toString(36)}${randomBytes(10).toString("hex")}`),
      sent.map((s) => s.event.id),
      sent.map((s) => s.event.type),
      sent.map((s) => s.endpoint.id),
      sent.map(() => false),
      ok.map((done) => (done ? "succeeded" : "pending")),
      sent.map(() => 1),
      ok.map((done) => (done ? null : now + 5_000)),
      sent.map((s) => s.status),
      sent.map((s) => s.durationMs),
      sent.map(() => now),
      sent.map(() => now)
    ]
  })
  await client.query({ name: "processed", text: markProcessed, values: [now, events.map((e) => e.id)] })
}

/** One transaction: claims a batch with `claimBatch`, delivers and records it; answers the batch. */
const drainBatch = async (client: pg.PoolClient, claimBatch: () => Promise<ReadonlyArray<OutboxRow>>) => {
  await client.query("BEGIN")
  try {
    const events = await claimBatch()
    if (events.length > 0) await deliverBatch(client, events)
    await client.query("COMMIT")
    return events
  } catch (error) {
    await client.query("ROLLBACK")
    throw error
  }
}

const loop = async (): Promise<void> => {
  const client = await pool.connect()
  const claimBatch = async () => (await client.query<OutboxRow>({ name: "claim", text: claim, values: [batch] })).rows
  try {
    while ((await drainBatch(client, claimBatch)).length > 0);
  } finally {
    client.release()
  }
}

// One partner's events, oldest first, a connection of the pool taken per batch.
const endpointLoop = async (partnerId: string): Promise<void> => {
  let after = { createdAt: "-1", id: "" }
  for (;;) {
    const client = await pool.connect()
    try {
      const events = await drainBatch(client, async () =>
        (await client.query<OutboxRow>({ name: "claimOfPartner", text: claimOfPartner, values: [batch, partnerId, after.createdAt, after.id] })).rows)
      const last = events.at(-1)
      if (last === undefined) return
      after = { createdAt: last.created_at, id: last.id }
    } finally {
      client.release()
    }
  }
}

await Promise.all(byEndpoint ? [...byPartner.keys()].map(endpointLoop) : Array.from({ length: loops }, loop))
await pool.end()
