/**
 * Reading API keys, apps and partners from their rows: shared by the credential store and the
 * dashboard sessions (a session finds its key and partner in the same statement).
 *
 * @module
 */
import { ApiKeyId, type ApiKeyRecord, AppId, type AppRecord, type KeyWithPartner, Mode, Partner, PartnerId } from "@paygate/domain"
import { Schema } from "effect"
import { toInt } from "./Rows.ts"

const decodePartner = Schema.decodeUnknownSync(Partner)

const decodeKey: (input: unknown) => ApiKeyRecord = Schema.decodeUnknownSync(Schema.Struct({
  id: ApiKeyId,
  kind: Schema.Literals(["partner", "wallet"]),
  mode: Mode,
  partnerId: Schema.NullOr(PartnerId),
  appId: Schema.NullOr(AppId),
  revoked: Schema.Boolean,
  secretSha256: Schema.String
}))

export const decodeApp: (input: unknown) => AppRecord = Schema.decodeUnknownSync(Schema.Struct({ id: AppId, mode: Mode, name: Schema.String }))

// A partner's columns (table alias `p`), named as `partnerFromRow` reads them.
export const partnerColumns = "p.id AS partner_id, p.name AS partner_name, p.pinned_version AS partner_pinned_version, p.created_at AS partner_created_at"

export const partnerFromRow = (row: Record<string, unknown>) =>
  decodePartner({ id: row.partner_id, name: row.partner_name, pinnedVersion: row.partner_pinned_version, createdAt: toInt(row.partner_created_at) })

/** The columns {@link keyWithPartnerFromRow} reads, over `api_keys k LEFT JOIN partners p`. */
export const keyWithPartnerColumns =
  `k.id, k.kind, k.mode, k.partner_id AS key_partner_id, k.app_id, k.revoked_at, k.secret_sha256, ${partnerColumns}`

/** A key and its partner from a row of {@link keyWithPartnerColumns}. */
export const keyWithPartnerFromRow = (row: Record<string, unknown>): KeyWithPartner => ({
  key: decodeKey({
    id: row.id,
    kind: row.kind,
    mode: row.mode,
    partnerId: row.key_partner_id,
    appId: row.app_id,
    revoked: row.revoked_at !== null,
    secretSha256: row.secret_sha256
  }),
  partner: row.partner_id === null ? null : partnerFromRow(row)
})
