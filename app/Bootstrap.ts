import { CredentialAdmin } from "@paygate/adapters"
import { Merchants } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** What a first start creates: a ready-to-use sandbox (secrets shown once, stored hashed). */
export interface SandboxCredentials {
  readonly partnerId: string
  readonly apiKey: string
  readonly merchantId: string
  readonly appId: string
  readonly walletApiKey: string
}

/**
 * On the first start (no partner yet), creates a sandbox partner with a key, a merchant and a
 * wallet app, so a newcomer can call the API at once. Later starts create nothing.
 */
export const bootstrapSandbox = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly partners: string | number }>`SELECT count(*) AS partners FROM partners`
  if (Number(row?.partners ?? 0) > 0) return undefined
  const admin = yield* CredentialAdmin
  const partner = yield* admin.createPartner({ name: "Sandbox partner" })
  const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" })
  const merchant = yield* (yield* Merchants).create({ partnerId: partner.id, mode: "sandbox" }, { merchantName: "Sandbox shop" })
  const app = yield* admin.createApp({ name: "Sandbox wallet", mode: "sandbox" })
  return {
    partnerId: partner.id,
    apiKey: key.apiKey,
    merchantId: merchant.id,
    appId: app.appId,
    walletApiKey: app.walletApiKey
  } satisfies SandboxCredentials
})
