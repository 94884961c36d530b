import { Schema } from "effect"

/**
 * A team member's role in a partner's dashboard, from most to least rights: `owner` (everything,
 * the team and the audit log), `developer` (API keys, webhooks), `operator` (refunds, payment
 * links), `viewer` (reads only). Developer and operator are siblings: neither includes the other.
 */
export const Role = Schema.Literals(["owner", "developer", "operator", "viewer"])
export type Role = typeof Role.Type

/** What an operation needs: a role that may perform it (the owner always may). */
export type Permission = "owner" | "developer" | "operator" | "viewer"

/** Whether a member of `role` may perform an operation that needs `needed`. */
export const allows = (role: Role, needed: Permission): boolean =>
  role === "owner" || needed === "viewer" || role === needed
