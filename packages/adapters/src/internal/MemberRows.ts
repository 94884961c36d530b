/**
 * Reading team members from their rows (table alias `m`): shared by the team store and the
 * dashboard sessions (a member's session reads the member's current role with it).
 *
 * @module
 */
import { type Member, Mode, PartnerId, Role } from "@paygate/domain"
import { Schema } from "effect"
import { toInt } from "./Rows.ts"

/** The columns {@link memberFromRow} reads. */
export const memberColumns = "m.id AS member_id, m.partner_id AS member_partner_id, m.mode AS member_mode, m.email AS member_email, m.role AS member_role, m.created_at AS member_created_at"

const decode = Schema.decodeUnknownSync(Schema.Struct({ partnerId: PartnerId, mode: Mode, role: Role }))

/** A member from a row of {@link memberColumns}. */
export const memberFromRow = (row: Record<string, unknown>): Member => ({
  id: String(row.member_id),
  ...decode({ partnerId: row.member_partner_id, mode: row.member_mode, role: row.member_role }),
  email: String(row.member_email),
  createdAt: toInt(row.member_created_at)
})
