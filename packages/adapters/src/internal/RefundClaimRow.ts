/**
 * Refund claims' `refund_claims` rows (migration 0027): a link's token is stored as its SHA-256
 * hash only, and looked up by it.
 *
 * @module
 */
import type { ClaimLink, RefundId } from "@paygate/domain"
import type { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"

/** The stored form of a link's token. */
export const tokenHash = (token: string) => createHash("sha256").update(token, "utf8").digest("hex")

/** The `INSERT` of a new refund's claim (in the refund insert's transaction). */
export const insertClaim = (sql: SqlClient.SqlClient, refundId: RefundId, link: ClaimLink) =>
  sql`INSERT INTO refund_claims (refund_id, token_hash, expires_at) VALUES (${refundId}, ${tokenHash(link.token)}, ${link.expiresAt}::bigint)`
