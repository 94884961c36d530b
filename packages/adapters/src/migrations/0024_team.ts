/**
 * Migration 0024: a partner's team. `team_members` sign in with an email and a scrypt password
 * hash; `team_invitations` keep only the SHA-256 of their one-time token; a session opened by a
 * member names them (`dashboard_sessions.member_id`) and ends with them. `audit_log` records who
 * (`key:…`, `member:…`) changed what.
 *
 * @module
 */

/** The statements of migration 0024, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE team_members (
    id text COLLATE "C" PRIMARY KEY,
    partner_id text COLLATE "C" NOT NULL REFERENCES partners (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    email text NOT NULL UNIQUE,
    role text NOT NULL CHECK (role IN ('owner', 'developer', 'operator', 'viewer')),
    password_hash text NOT NULL,
    created_at bigint NOT NULL
  )`,
  `CREATE INDEX team_members_partner ON team_members (partner_id, mode)`,
  `CREATE TABLE team_invitations (
    id text COLLATE "C" PRIMARY KEY,
    partner_id text COLLATE "C" NOT NULL REFERENCES partners (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    email text NOT NULL,
    role text NOT NULL CHECK (role IN ('owner', 'developer', 'operator', 'viewer')),
    token_sha256 text COLLATE "C" NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
    invited_by text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    accepted_at bigint
  )`,
  `ALTER TABLE dashboard_sessions ADD COLUMN member_id text COLLATE "C" REFERENCES team_members (id) ON DELETE CASCADE`,
  `CREATE TABLE audit_log (
    seq bigserial PRIMARY KEY,
    partner_id text COLLATE "C" NOT NULL REFERENCES partners (id),
    mode text NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    subject text NOT NULL,
    at bigint NOT NULL
  )`,
  `CREATE INDEX audit_log_partner ON audit_log (partner_id, mode, seq DESC)`
]
