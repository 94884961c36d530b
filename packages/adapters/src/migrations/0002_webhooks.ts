/**
 * Migration 0002: webhook endpoints and their deliveries (API rules §6). Same conventions as
 * 0001: ids `text COLLATE "C"`, times in Unix milliseconds (`bigint`), enumerations checked.
 *
 * - `webhook_endpoints.secret_ciphertext`: the signing secret, AES-256-GCM encrypted (see
 *   `webhooks/SecretCipher.ts`); the plaintext is never stored. Deleted endpoints keep their row
 *   (`deleted_at`) so their deliveries stay readable to the service.
 * - `webhook_deliveries`: one row per (event, endpoint) from the fan-out (`webhook_deliveries_once`
 *   makes a second fan-out of the same event a no-op), plus one per redelivery. A pending
 *   delivery is due at `next_attempt_at`; a claim leases it until `lease_until`.
 *
 * @module
 */

/** The statements of migration 0002, in order. */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE webhook_endpoints (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^whe_[A-Za-z0-9]{1,64}$'),
    partner_id text COLLATE "C" NOT NULL REFERENCES partners (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    events jsonb NOT NULL,
    merchant_id text COLLATE "C" REFERENCES merchants (id),
    secret_ciphertext text NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'disabled')),
    api_version text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    deleted_at bigint
  )`,
  `CREATE INDEX webhook_endpoints_listing ON webhook_endpoints (partner_id, mode, created_at, id) WHERE deleted_at IS NULL`,
  `CREATE TABLE webhook_deliveries (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^dlv_[A-Za-z0-9]{1,64}$'),
    event_id text COLLATE "C" NOT NULL REFERENCES outbox_events (id),
    event_type text NOT NULL,
    endpoint_id text COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id),
    redelivery boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts integer NOT NULL CHECK (attempts >= 0),
    next_attempt_at bigint,
    lease_until bigint,
    last_status_code integer,
    last_duration_ms integer,
    last_error text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT webhook_deliveries_due CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
  )`,
  `CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, endpoint_id) WHERE NOT redelivery`,
  `CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at, id)`
]
