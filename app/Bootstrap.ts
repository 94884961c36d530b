import { CredentialAdmin } from "@paygate/adapters"
import { Merchants } from "@paygate/domain"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"

/** The sandbox a first start creates (none of these ids is secret). */
export interface SandboxIds {
  readonly partnerId: string
  readonly merchantId: string
  readonly appId: string
}

/** The sandbox's secrets: shown on the first start only, stored hashed. */
export interface SandboxSecrets {
  readonly apiKey: string
  readonly walletApiKey: string
}

/** What `npm start` tells about the sandbox: its ids on every start, its secrets when it was just created. */
export interface Sandbox {
  readonly ids: SandboxIds
  readonly secrets: Option.Option<SandboxSecrets>
}

const partnerName = "Sandbox partner"
const merchantName = "Sandbox shop"
const appName = "Sandbox wallet"

// The sandbox of an earlier first start, if it is still there (an operator may have removed it).
const existingSandbox = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly partner_id: string; readonly merchant_id: string; readonly app_id: string }>`
    SELECT p.id AS partner_id, m.id AS merchant_id, a.id AS app_id
    FROM partners p
    JOIN merchants m ON m.partner_id = p.id AND m.mode = 'sandbox' AND m.name = ${merchantName} AND NOT m.deleted
    CROSS JOIN LATERAL (
      SELECT id FROM apps WHERE mode = 'sandbox' AND name = ${appName} AND revoked_at IS NULL ORDER BY created_at LIMIT 1
    ) a
    WHERE p.name = ${partnerName}
    ORDER BY p.created_at, m.created_at
    LIMIT 1`
  return Option.map(Option.fromNullishOr(rows[0]), (row): SandboxIds => ({
    partnerId: row.partner_id,
    merchantId: row.merchant_id,
    appId: row.app_id
  }))
})

// Held while a start decides whether it is the first one: of several processes starting together
// on an empty database, one creates the sandbox and the others then find partners. A transaction
// lock, so a start that dies lets go of it with its connection.
const firstStartLock = 0x7061_7967 // "payg"

const firstStart = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT pg_advisory_xact_lock(${firstStartLock})`
  const [row] = yield* sql<{ readonly partners: string | number }>`SELECT count(*) AS partners FROM partners`
  if (Number(row?.partners ?? 0) > 0) return Option.map(yield* existingSandbox, (ids): Sandbox => ({ ids, secrets: Option.none() }))
  const admin = yield* CredentialAdmin
  const partner = yield* admin.createPartner({ name: partnerName })
  const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" })
  const merchant = yield* (yield* Merchants).create({ partnerId: partner.id, mode: "sandbox" }, { merchantName })
  const app = yield* admin.createApp({ name: appName, mode: "sandbox" })
  return Option.some<Sandbox>({
    ids: { partnerId: partner.id, merchantId: merchant.id, appId: app.appId },
    secrets: Option.some({ apiKey: key.apiKey, walletApiKey: app.walletApiKey })
  })
})

/**
 * On the first start (no partner yet), creates a sandbox partner with a key, a merchant and a
 * wallet app, so a newcomer can call the API at once. Later starts create nothing and find that
 * sandbox again (none when it was removed). One transaction: processes that start together create
 * one sandbox between them, and a start that dies half-way leaves none.
 */
export const bootstrapSandbox: Effect.Effect<Option.Option<Sandbox>, unknown, SqlClient.SqlClient | CredentialAdmin | Merchants> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(firstStart)
})
