/**
 * The database of the webhook backlog (`webhookBacklog.ts`), built once and copied for each drain
 * (`CREATE DATABASE … TEMPLATE`): the service's schema (its migrations), the backlog's partners,
 * merchants and endpoints copied row for row from the bench's world (their secrets encrypted with
 * its key, which the worker is given), and `count` new payments with their `payment.created`
 * outbox events written in bulk by SQL (`generate_series`), partner `n % partners` for row `n`,
 * so the partners' events interleave, 1,000 a second, the oldest first.
 *
 * Every row is a copy of a prototype the service wrote itself (a payment and its event, seeded
 * through the world), with its ids, owner, reference and times replaced: the shape stays the
 * service's whatever it becomes.
 */
import { Database, Migrations } from "@paygate/adapters"
import { Effect } from "effect"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { adminQuery as query, dropDatabase, withDatabase } from "./processes.ts"

/** The owners of the backlog's events, in the world's database. */
export interface BacklogOwners {
  /** The world's database, where the partners, merchants and endpoints are. */
  readonly worldUrl: string
  /** Partner and merchant of each slot; row `n` belongs to slot `n % length`. */
  readonly merchants: ReadonlyArray<{ readonly id: string; readonly partnerId: string }>
  readonly endpointIds: ReadonlyArray<string>
  /** The outbox event the service wrote for the prototype (processed here; copied in the template). */
  readonly prototypeEventId: string
}

/** The id of backlog event `n` (ids sort as the rows are numbered). */
export const backlogEventId = (n: number) => `evt_backlog${String(n).padStart(7, "0")}`

// Each table's rows of the given ids (or owned by `column`), as JSON, from the world.
const rowsOf = async (url: string, table: string, column: string, ids: ReadonlyArray<string>) =>
  (await query(url, `SELECT coalesce(jsonb_agg(t), '[]'::jsonb) AS rows FROM ${table} t WHERE ${column} = ANY($1::text[])`, [ids])).rows[0]!
    .rows as unknown

/** Builds the template on the world's server; answers its URL (nothing stays connected to it). */
export const buildBacklogTemplate = async (owners: BacklogOwners, count: number): Promise<string> => {
  const url = withDatabase(owners.worldUrl, `paygate_backlog_${randomBytes(4).toString("hex")}`)
  await query(withDatabase(owners.worldUrl, "postgres"), `CREATE DATABASE "${new URL(url).pathname.slice(1)}"`)
  try {
    await fill(url, owners, count)
    return url
  } catch (error) {
    await dropDatabase(url)
    throw error
  }
}

const fill = async (url: string, owners: BacklogOwners, count: number) => {
  await Effect.runPromise(Migrations.run.pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 1 }))))

  const partnerIds = [...new Set(owners.merchants.map((m) => m.partnerId))]
  const merchantIds = owners.merchants.map((m) => m.id)
  const copies = [
    ["partners", await rowsOf(owners.worldUrl, "partners", "id", partnerIds)],
    ["merchants", await rowsOf(owners.worldUrl, "merchants", "id", merchantIds)],
    ["webhook_endpoints", await rowsOf(owners.worldUrl, "webhook_endpoints", "id", owners.endpointIds)]
  ] as const
  const { rows: [prototype] } = await query(
    owners.worldUrl,
    `UPDATE outbox_events o SET processed_at = o.created_at FROM payments p
      WHERE o.id = $1 AND p.id = o.payment_id RETURNING o.type, o.payload, to_jsonb(p) AS payment`,
    [owners.prototypeEventId]
  )
  if (prototype === undefined) throw new Error(`backlog: no prototype event ${owners.prototypeEventId}`)

  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query("BEGIN")
    for (const [table, rows] of copies) {
      await client.query(`INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`, [JSON.stringify(rows)])
    }
    // Row n: created `count - n` ms before the newest; payable for a day (no expiry during the bench).
    const newest = Date.now() - 60_000
    const rows = `FROM generate_series(0, $2::bigint - 1) AS n, LATERAL (SELECT $6::bigint - $2::bigint + n AS at,
        'pay_backlog' || lpad(n::text, 7, '0') AS payment_id, 'evt_backlog' || lpad(n::text, 7, '0') AS event_id,
        ($3::text[])[n % $5 + 1] AS partner_id, ($4::text[])[n % $5 + 1] AS merchant_id) r`
    const slots = [owners.merchants.map((m) => m.partnerId), merchantIds, owners.merchants.length, newest]
    await client.query(
      // In FROM: `(f(…)).*` in the select list would call f once per column.
      `INSERT INTO payments SELECT p.* ${rows}, LATERAL jsonb_populate_record(NULL::payments, $1::jsonb || jsonb_build_object(
          'id', r.payment_id, 'partner_id', r.partner_id, 'merchant_id', r.merchant_id, 'reference_id', 'backlog-' || n,
          'created_at', r.at, 'updated_at', r.at, 'expires_at', (r.at / 1000 + 86400) * 1000)) p`,
      [JSON.stringify(prototype.payment), count, ...slots]
    )
    await client.query(
      `INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
        SELECT r.event_id, $7::text, r.partner_id, r.payment_id, $1::jsonb || jsonb_build_object(
          'id', r.event_id, 'partnerId', r.partner_id, 'paymentId', r.payment_id, 'createdAt', r.at / 1000,
          'payment', ($1::jsonb -> 'payment') || jsonb_build_object('id', r.payment_id, 'partnerId', r.partner_id,
            'merchantId', r.merchant_id, 'referenceId', 'backlog-' || n, 'createdAt', r.at, 'updatedAt', r.at,
            'expiresAt', r.at / 1000 + 86400)),
          r.at / 1000 * 1000
        ${rows}`,
      [JSON.stringify(prototype.payload), count, ...slots, prototype.type]
    )
    await client.query("COMMIT")
    // As autovacuum leaves tables at rest (visibility map, statistics).
    await client.query("VACUUM ANALYZE payments, outbox_events")
  } finally {
    await client.end()
  }
}
