/**
 * Migration 0012: dashboard sessions (`POST /dashboard/session`). A session is kept only as the
 * SHA-256 of its cookie's token, like API keys; it acts as the key it was opened with and ends
 * when that key is revoked, when it was idle too long (`idle_expires_at`) or at `expires_at`.
 * `api_keys.hint` keeps the last characters of new keys' secrets, so a partner can tell its keys
 * apart (`GET /v1/api-keys`); keys issued before have none.
 *
 * @module
 */

/** The statements of migration 0012, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE dashboard_sessions (
    token_sha256 text COLLATE "C" PRIMARY KEY CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
    key_id text COLLATE "C" NOT NULL REFERENCES api_keys (id),
    created_at bigint NOT NULL,
    idle_expires_at bigint NOT NULL,
    expires_at bigint NOT NULL
  )`,
  `CREATE INDEX dashboard_sessions_key ON dashboard_sessions (key_id)`,
  `CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)`,
  `ALTER TABLE api_keys ADD COLUMN hint text`
]
