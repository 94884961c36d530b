/**
 * What `CredentialAdmin`'s listings answer the operator: partners, merchants, wallet apps and
 * keys (the domain's `KeyListing`), read from their rows. None carries a secret or its digest:
 * `api_keys` stores only the SHA-256 of a secret and, for keys issued since migration 0012, its
 * last four characters (`hint`).
 * Times are Unix milliseconds.
 *
 * @module
 */
import { AppId, KeyListing, MerchantId, Mode, PartnerId } from "@paygate/domain"
import { Schema } from "effect"
import { toInt, toIntOrNull } from "./internal/Rows.ts"

/** A partner with how many unrevoked partner keys it has in each mode. */
export const PartnerListing = Schema.Struct({
  partnerId: PartnerId,
  name: Schema.String,
  pinnedVersion: Schema.String,
  createdAt: Schema.Number,
  activeKeys: Schema.Struct({ live: Schema.Number, sandbox: Schema.Number })
})
export type PartnerListing = typeof PartnerListing.Type

/** A merchant of a partner, deleted ones included. */
export const MerchantListing = Schema.Struct({
  merchantId: MerchantId,
  partnerId: PartnerId,
  mode: Mode,
  name: Schema.String,
  deleted: Schema.Boolean,
  createdAt: Schema.Number
})
export type MerchantListing = typeof MerchantListing.Type

/** A wallet app; `revokedAt` is `null` while it works. */
export const AppListing = Schema.Struct({
  appId: AppId,
  name: Schema.String,
  mode: Mode,
  revoked: Schema.Boolean,
  createdAt: Schema.Number,
  revokedAt: Schema.NullOr(Schema.Number)
})
export type AppListing = typeof AppListing.Type

const decodePartner = Schema.decodeUnknownSync(PartnerListing)
const decodeMerchant = Schema.decodeUnknownSync(MerchantListing)
const decodeApp = Schema.decodeUnknownSync(AppListing)
const decodeKey = Schema.decodeUnknownSync(KeyListing)

/** A row of `partners` with `live_keys` and `sandbox_keys` counts. */
export const partnerFromRow = (row: Record<string, unknown>): PartnerListing =>
  decodePartner({
    partnerId: row.id,
    name: row.name,
    pinnedVersion: row.pinned_version,
    createdAt: toInt(row.created_at),
    activeKeys: { live: toInt(row.live_keys), sandbox: toInt(row.sandbox_keys) }
  })

/** A row of `merchants`. */
export const merchantFromRow = (row: Record<string, unknown>): MerchantListing =>
  decodeMerchant({
    merchantId: row.id,
    partnerId: row.partner_id,
    mode: row.mode,
    name: row.name,
    deleted: row.deleted,
    createdAt: toInt(row.created_at)
  })

/** A row of `apps`. */
export const appFromRow = (row: Record<string, unknown>): AppListing =>
  decodeApp({
    appId: row.id,
    name: row.name,
    mode: row.mode,
    revoked: row.revoked_at !== null,
    createdAt: toInt(row.created_at),
    revokedAt: toIntOrNull(row.revoked_at)
  })

/** A row of `api_keys` with `owner_id` (its partner or app); never its digest. */
export const keyFromRow = (row: Record<string, unknown>): KeyListing =>
  decodeKey({
    keyId: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    mode: row.mode,
    hint: row.hint ?? null,
    createdAt: toInt(row.created_at),
    revokedAt: toIntOrNull(row.revoked_at)
  })
