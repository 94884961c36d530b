/**
 * The raw baseline the service is measured against: `node:http` and node-postgres (`pg`; named
 * statements, prepared once per connection as `@effect/sql-pg` prepares its own), pool of 10 like
 * the service (`Database.layerUrl`), no framework, no validation beyond JSON parsing. It writes the
 * service's own tables (same schema, indexes, constraints and foreign keys), rows of the same shape.
 * The bench checks that it does not slow down over a run (its canary, `run.ts`).
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
 *   completion (the stored response) in one statement: 2 round trips.
 * - `GET /bs/payments/:id`: the payment: 1 round trip.
 *
 * - `POST /plain/gateway/payment/:id/confirm`: the gateway confirm of an EIP-3009 pull option,
 *   every check and statement of the service's written plainly (`lib/PlainConfirm.ts`).
 *
 * Environment: `DATABASE_URL`, `PORT` (0 = any), `PARTNER_ID`, `MERCHANT_ID` (an existing sandbox
 * merchant of that partner: the payments' foreign key). Prints `listening <port>` when ready.
 */
import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import {
  appEnvironment,
  bodySha256,
  claimKey,
  type CreateBody,
  createdResponse,
  createdEvent,
  idempotencyTtlMillis,
  insertPayment,
  insertPaymentResponseEvent,
  newId,
  paymentRow,
  paymentValues,
  statusResponse,
  statusSelect
} from "./lib/rows.ts"
import { plainConfirm } from "./lib/PlainConfirm.ts"

const { merchantId, partnerId, url } = appEnvironment("baseline")

const pool = new pg.Pool({ connectionString: url, max: 10 })
pool.on("error", (error) => process.stderr.write(`baseline: idle connection failed: ${String(error)}\n`))

// Named statements: node-postgres parses each once per connection and then only binds and executes.
const query = (client: pg.Pool | pg.PoolClient, name: string, text: string, values: ReadonlyArray<unknown>) =>
  client.query({ name, text, values: values as Array<unknown> })

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

const b1Create = async (request: IncomingMessage, response: ServerResponse) => {
  const p = paymentRow(partnerId, merchantId, JSON.parse(await readBody(request)) as CreateBody)
  await query(pool, "insert-payment", insertPayment, paymentValues(p))
  send(response, 200, createdResponse(p))
}

const b1Status = async (id: string, response: ServerResponse) => {
  const { rows: [row] } = await query(pool, "status", statusSelect, [id])
  if (row === undefined) return send(response, 404, { code: "payment_not_found", message: "No such payment." })
  send(response, 200, statusResponse(row))
}

const insertEvent = `INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
  VALUES ($1, 'payment.created', $2, $3, $4::jsonb, $5)`

const b2Create = async (request: IncomingMessage, response: ServerResponse) => {
  const key = request.headers["idempotency-key"]
  const text = await readBody(request)
  if (typeof key !== "string") return send(response, 400, { code: "invalid_params", message: "Idempotency-Key is required." })
  const p = paymentRow(partnerId, merchantId, JSON.parse(text) as CreateBody)
  const now = p.created_at
  const eventId = newId("evt")
  const client = await pool.connect()
  let claimed = false
  try {
    await client.query("BEGIN")
    const claim = await query(client, "b2-claim", claimKey, [partnerId, "POST /b2/payments", key, bodySha256(text), now, now + idempotencyTtlMillis])
    claimed = claim.rows.length > 0
    if (claimed) {
      await query(client, "insert-payment", insertPayment, paymentValues(p))
      await query(client, "b2-event", insertEvent, [eventId, p.partner_id, p.id, JSON.stringify(createdEvent(eventId, p)), now])
    }
    await client.query("COMMIT")
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
  if (!claimed) return send(response, 409, { code: "idempotency_conflict", message: "Key already used." })
  send(response, 200, createdResponse(p))
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
    const { rows: [key] } = await query(pool, "credential", `SELECT k.id, k.mode, k.revoked_at, p.id AS partner_id, p.name, p.pinned_version,
        p.created_at FROM api_keys k LEFT JOIN partners p ON p.id = k.partner_id WHERE k.secret_sha256 = $1`, [digest])
    return key === undefined || key.revoked_at !== null || key.partner_id === null
      ? undefined
      : { partnerId: String(key.partner_id), mode: String(key.mode) }
  })
}

const merchantOf = async (request: IncomingMessage, caller: { partnerId: string; mode: string }) => {
  const id = request.headers["merchant-id"]
  if (typeof id !== "string") return undefined
  const merchant = await throughCache(`merchant ${caller.partnerId} ${caller.mode} ${id}`, async () => {
    const { rows: [row] } = await query(pool, "merchant", "SELECT * FROM merchants WHERE id = $1 AND partner_id = $2 AND mode = $3", [
      id,
      caller.partnerId,
      caller.mode
    ])
    return row as { readonly deleted: boolean } | undefined
  })
  return merchant === undefined || merchant.deleted ? undefined : merchant
}

const sameCreate = async (request: IncomingMessage, response: ServerResponse) => {
  const text = await readBody(request)
  const caller = await credential(request)
  if (caller === undefined) return send(response, 401, { code: "invalid_api_key", message: "The API key is not valid." })
  const key = request.headers["idempotency-key"]
  if (typeof key !== "string") return send(response, 400, { code: "invalid_params", message: "Idempotency-Key is required." })
  const now = Date.now()
  const route = "POST /bs/payments"
  const claim = await query(pool, "claim", claimKey, [caller.partnerId, route, key, bodySha256(text), now, now + idempotencyTtlMillis])
  if (claim.rows.length === 0) return send(response, 409, { code: "idempotency_conflict", message: "Key already used." })
  if ((await merchantOf(request, caller)) === undefined) {
    return send(response, 404, { code: "merchant_not_found", message: "No such merchant." })
  }
  const p = paymentRow(partnerId, merchantId, JSON.parse(text) as CreateBody)
  const eventId = newId("evt")
  const created = createdResponse(p)
  await query(pool, "create", insertPaymentResponseEvent, [
    ...paymentValues(p),
    JSON.stringify(created),
    caller.partnerId,
    route,
    key,
    eventId,
    JSON.stringify(createdEvent(eventId, p))
  ])
  send(response, 200, created)
}

const sameStatus = async (request: IncomingMessage, id: string, response: ServerResponse) => {
  const caller = await credential(request)
  if (caller === undefined) return send(response, 401, { code: "invalid_api_key", message: "The API key is not valid." })
  if ((await merchantOf(request, caller)) === undefined) {
    return send(response, 404, { code: "merchant_not_found", message: "No such merchant." })
  }
  await b1Status(id, response)
}

const confirm = plainConfirm(pool, query, send)

const statusPath = /^\/b1\/payments\/([^/]+)$/
const confirmPath = /^\/plain\/gateway\/payment\/([^/]+)\/confirm$/
const sameStatusPath = /^\/bs\/payments\/([^/]+)$/

const server = createServer((request, response) => {
  const path = request.url ?? "/"
  let handled: Promise<void> | undefined
  if (request.method === "POST" && path === "/b1/payments") handled = b1Create(request, response)
  else if (request.method === "POST" && path === "/b2/payments") handled = b2Create(request, response)
  else if (request.method === "POST" && path === "/bs/payments") handled = sameCreate(request, response)
  else if (request.method === "POST" && confirmPath.test(path)) handled = confirm(request, response, confirmPath.exec(path)![1]!)
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
  void pool.end().then(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
