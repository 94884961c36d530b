/**
 * The hand-written baseline the service is measured against: `node:http` and a raw PostgreSQL
 * client (`postgres`, porsager's; parameterised statements, prepared and cached per connection as
 * `@effect/sql-pg` does), pool of 10 like the service (`Database.layerUrl`), no framework, no
 * validation beyond JSON parsing. It writes the service's own tables (same schema, indexes,
 * constraints and foreign keys), rows of the same shape.
 *
 * - `POST /b1/payments`: B1 create, one `INSERT` of a payment.
 * - `GET /b1/payments/:id`: B1 status, one `SELECT` of a payment by id (the columns the service reads).
 * - `POST /b2/payments`: B2 create, one transaction: idempotency claim (`Idempotency-Key` header)
 *   + payment `INSERT` + outbox event `INSERT` (the payment snapshot as payload).
 *
 * Diagnostics, the service's own statement plan written by hand (what the service would cost
 * without its framework and domain code; see `BENCHMARKS.md`). The API key with its partner and
 * the merchant are kept in memory for 10 s, as the service's credential cache does:
 *
 * - `POST /bs/payments`: idempotency claim, then the payment, its outbox event and the idempotency
 *   completion (the stored answer) in one statement: 2 round trips.
 * - `GET /bs/payments/:id`: the payment: 1 round trip.
 *
 * Environment: `DATABASE_URL`, `PORT` (0 = any), `PARTNER_ID`, `MERCHANT_ID` (an existing sandbox
 * merchant of that partner: the payments' foreign key). Prints `listening <port>` when ready.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import postgres from "postgres"

const url = process.env.DATABASE_URL
const partnerId = process.env.PARTNER_ID
const merchantId = process.env.MERCHANT_ID
if (url === undefined || partnerId === undefined || merchantId === undefined) {
  process.stderr.write("baseline: DATABASE_URL, PARTNER_ID and MERCHANT_ID are required\n")
  process.exit(2)
}

const sql = postgres(url, { max: 10, onnotice: () => {} })

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const newId = (prefix: string) => {
  const bytes = randomBytes(16)
  let body = ""
  for (const byte of bytes) body += alphabet[byte & 31]
  return `${prefix}_${Date.now().toString(32).toUpperCase()}${body}`
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (body += chunk))
    request.on("end", () => resolve(body))
    request.on("error", reject)
  })

const send = (response: ServerResponse, status: number, value: unknown) => {
  const text = JSON.stringify(value)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

interface CreateBody {
  readonly amount: { readonly unit: string; readonly value: string }
  readonly referenceId: string
}

const lifetimeMillis = 15 * 60 * 1000

const paymentRow = (body: CreateBody) => {
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

type Row = ReturnType<typeof paymentRow>

const insertPayment = (db: postgres.Sql | postgres.TransactionSql, p: Row) =>
  db`INSERT INTO payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status, state_version,
      checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at)
    VALUES (${p.id}, ${p.partner_id}, ${p.merchant_id}, ${p.mode}, ${p.reference_id}, ${p.currency}, ${p.value}::numeric,
      ${p.status}, ${p.state_version}, NULL, ${p.expires_at}, NULL, NULL, NULL, ${p.created_at}, ${p.updated_at})`

const created = (p: Row) => ({
  paymentId: p.id,
  status: "pending",
  expiresAt: Math.floor(p.expires_at / 1000),
  isFinal: false,
  pollInMs: 2000
})

const b1Create = async (request: IncomingMessage, response: ServerResponse) => {
  const p = paymentRow(JSON.parse(await readBody(request)) as CreateBody)
  await insertPayment(sql, p)
  send(response, 200, created(p))
}

const b1Status = async (id: string, response: ServerResponse) => {
  const [row] = await sql`SELECT id, partner_id, merchant_id, mode, reference_id, currency, value::text AS value, status,
      state_version, checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at
    FROM payments WHERE id = ${id}`
  if (row === undefined) return send(response, 404, { code: "payment_not_found", message: "No such payment." })
  const expired = row.status === "requires_action" && Number(row.expires_at) <= Date.now()
  const status = expired ? "expired" : row.status === "requires_action" ? "pending" : row.status
  send(response, 200, { status, isFinal: status !== "pending" && status !== "processing" })
}

const b2Create = async (request: IncomingMessage, response: ServerResponse) => {
  const key = request.headers["idempotency-key"]
  const text = await readBody(request)
  if (typeof key !== "string") return send(response, 400, { code: "invalid_params", message: "Idempotency-Key is required." })
  const bodySha256 = createHash("sha256").update(text).digest("hex")
  const p = paymentRow(JSON.parse(text) as CreateBody)
  const now = p.created_at
  const eventId = newId("evt")
  const payload = {
    id: eventId,
    type: "payment.created",
    createdAt: now,
    payment: { ...p, checkout: null, commitment: null, cancelledReason: null, cancelledAt: null }
  }
  const claimed = await sql.begin(async (tx) => {
    const claim = await tx`INSERT INTO idempotency_keys (partner_id, route, key, body_sha256, status_code, response_body, created_at, expires_at)
      VALUES (${partnerId}, 'POST /b2/payments', ${key}, ${bodySha256}, NULL, NULL, ${now}, ${now + 86_400_000})
      ON CONFLICT (partner_id, route, key) DO NOTHING RETURNING 1`
    if (claim.length === 0) return false
    await insertPayment(tx, p)
    await tx`INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
      VALUES (${eventId}, 'payment.created', ${p.partner_id}, ${p.id}, ${JSON.stringify(payload)}::jsonb, ${now})`
    return true
  })
  if (!claimed) return send(response, 409, { code: "idempotency_conflict", message: "Key already used." })
  send(response, 200, created(p))
}

// The service's statements (SqlCredentialStore, SqlIdempotencyStore, SqlMerchantRepository, SqlPaymentRepository),
// credentials and merchants kept for 10 s as its CredentialCache keeps them.
const cacheMillis = 10_000
const cached = new Map<string, { readonly value: unknown; readonly until: number }>()
const throughCache = async <A>(key: string, read: () => Promise<A | undefined>): Promise<A | undefined> => {
  const hit = cached.get(key)
  if (hit !== undefined && hit.until > Date.now()) return hit.value as A
  const value = await read()
  if (value !== undefined) cached.set(key, { value, until: Date.now() + cacheMillis })
  return value
}

const credential = (request: IncomingMessage) => {
  const apiKey = request.headers["api-key"]
  if (typeof apiKey !== "string") return Promise.resolve(undefined)
  const digest = createHash("sha256").update(apiKey, "utf8").digest("hex")
  return throughCache(`key ${digest}`, async () => {
    const [key] = await sql`SELECT k.id, k.mode, k.revoked_at, p.id AS partner_id, p.name, p.pinned_version, p.created_at
      FROM api_keys k LEFT JOIN partners p ON p.id = k.partner_id WHERE k.secret_sha256 = ${digest}`
    return key === undefined || key.revoked_at !== null || key.partner_id === null
      ? undefined
      : { partnerId: String(key.partner_id), mode: String(key.mode) }
  })
}

const merchantOf = async (request: IncomingMessage, caller: { partnerId: string; mode: string }) => {
  const id = request.headers["merchant-id"]
  if (typeof id !== "string") return undefined
  const merchant = await throughCache(`merchant ${caller.partnerId} ${caller.mode} ${id}`, async () => {
    const [row] = await sql`SELECT * FROM merchants WHERE id = ${id} AND partner_id = ${caller.partnerId} AND mode = ${caller.mode}`
    return row
  })
  return merchant === undefined || merchant.deleted === true ? undefined : merchant
}

const sameCreate = async (request: IncomingMessage, response: ServerResponse) => {
  const text = await readBody(request)
  const caller = await credential(request)
  if (caller === undefined) return send(response, 401, { code: "invalid_api_key", message: "The API key is not valid." })
  const key = request.headers["idempotency-key"]
  if (typeof key !== "string") return send(response, 400, { code: "invalid_params", message: "Idempotency-Key is required." })
  const now = Date.now()
  const bodySha256 = createHash("sha256").update(text).digest("hex")
  const claim = await sql`INSERT INTO idempotency_keys AS k (partner_id, route, key, body_sha256, status_code, response_body, created_at, expires_at)
    VALUES (${caller.partnerId}, 'POST /bs/payments', ${key}, ${bodySha256}, NULL, NULL, ${now}, ${now + 86_400_000})
    ON CONFLICT (partner_id, route, key) DO UPDATE SET body_sha256 = EXCLUDED.body_sha256, status_code = NULL, response_body = NULL,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE k.expires_at <= EXCLUDED.created_at
    RETURNING 1 AS claimed`
  if (claim.length === 0) return send(response, 409, { code: "idempotency_conflict", message: "Key already used." })
  if ((await merchantOf(request, caller)) === undefined) {
    return send(response, 404, { code: "merchant_not_found", message: "No such merchant." })
  }
  const p = paymentRow(JSON.parse(text) as CreateBody)
  const eventId = newId("evt")
  const payload = { id: eventId, type: "payment.created", createdAt: now, payment: { ...p, checkout: null, commitment: null } }
  const answer = created(p)
  await sql`WITH payment AS (
      INSERT INTO payments (id, partner_id, merchant_id, mode, reference_id, currency, value, status, state_version,
        checkout, expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at)
      VALUES (${p.id}, ${p.partner_id}, ${p.merchant_id}, ${p.mode}, ${p.reference_id}, ${p.currency}, ${p.value}::numeric,
        ${p.status}, ${p.state_version}, NULL, ${p.expires_at}, NULL, NULL, NULL, ${p.created_at}, ${p.updated_at})),
    completion AS (
      UPDATE idempotency_keys SET status_code = 200, response_body = ${JSON.stringify(answer)}
      WHERE partner_id = ${caller.partnerId} AND route = 'POST /bs/payments' AND key = ${key} AND status_code IS NULL)
    INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
    VALUES (${eventId}, 'payment.created', ${p.partner_id}, ${p.id}, ${JSON.stringify(payload)}::jsonb, ${now})`
  send(response, 200, answer)
}

const sameStatus = async (request: IncomingMessage, id: string, response: ServerResponse) => {
  const caller = await credential(request)
  if (caller === undefined) return send(response, 401, { code: "invalid_api_key", message: "The API key is not valid." })
  if ((await merchantOf(request, caller)) === undefined) {
    return send(response, 404, { code: "merchant_not_found", message: "No such merchant." })
  }
  await b1Status(id, response)
}

const statusPath = /^\/b1\/payments\/([^/]+)$/
const sameStatusPath = /^\/bs\/payments\/([^/]+)$/

const server = createServer((request, response) => {
  const path = request.url ?? "/"
  let handled: Promise<void> | undefined
  if (request.method === "POST" && path === "/b1/payments") handled = b1Create(request, response)
  else if (request.method === "POST" && path === "/b2/payments") handled = b2Create(request, response)
  else if (request.method === "POST" && path === "/bs/payments") handled = sameCreate(request, response)
  else if (request.method === "GET") {
    const match = statusPath.exec(path)
    const same = sameStatusPath.exec(path)
    if (match !== null) handled = b1Status(match[1]!, response)
    else if (same !== null) handled = sameStatus(request, same[1]!, response)
  }
  if (handled === undefined) return send(response, 404, { code: "not_found", message: "No such route." })
  handled.catch((error: unknown) => {
    process.stderr.write(`baseline: ${String(error)}\n`)
    if (!response.headersSent) send(response, 500, { code: "internal_error", message: "Internal error." })
  })
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === "object" && address !== null ? address.port : ""}\n`)
})

const stop = () => {
  server.close()
  server.closeIdleConnections()
  void sql.end({ timeout: 5 }).then(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
