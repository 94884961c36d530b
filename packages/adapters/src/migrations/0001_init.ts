/**
 * Migration 0001: the initial schema. Runs unchanged on PostgreSQL 15+ and PGlite.
 *
 * Conventions: ids are `text COLLATE "C"` (byte order, the order the domain's cursors compare
 * in, whatever the database locale); every `*_at` column is Unix **milliseconds** in a `bigint`
 * (the adapters convert the domain's second-based fields); money is `numeric(20,0)` (exact);
 * enumerations are `text` with a `CHECK`. Constraints that the adapters map to contract errors
 * have explicit names.
 *
 * @module
 */

/** The statements of migration 0001, in order (one statement each: the extended protocol runs one at a time). */
export const statements: ReadonlyArray<string> = [
  `CREATE TABLE partners (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^ptn_[A-Za-z0-9]{1,64}$'),
    name text NOT NULL CHECK (name <> ''),
    pinned_version text NOT NULL CHECK (pinned_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    created_at bigint NOT NULL
  )`,
  `CREATE TABLE apps (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^app_[A-Za-z0-9]{1,64}$'),
    name text NOT NULL CHECK (name <> ''),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    created_at bigint NOT NULL,
    CONSTRAINT apps_id_mode UNIQUE (id, mode)
  )`,
  // A partner key belongs to a partner, a wallet key to an app of the same mode; only hashes are kept.
  `CREATE TABLE api_keys (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^key_[A-Za-z0-9]{1,64}$'),
    kind text NOT NULL CHECK (kind IN ('partner', 'wallet')),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    partner_id text COLLATE "C" REFERENCES partners (id),
    app_id text COLLATE "C",
    secret_sha256 text NOT NULL CHECK (secret_sha256 ~ '^[0-9a-f]{64}$'),
    revoked_at bigint,
    created_at bigint NOT NULL,
    CONSTRAINT api_keys_secret_sha256 UNIQUE (secret_sha256),
    CONSTRAINT api_keys_app FOREIGN KEY (app_id, mode) REFERENCES apps (id, mode),
    CONSTRAINT api_keys_owner CHECK (
      (kind = 'partner' AND partner_id IS NOT NULL AND app_id IS NULL) OR
      (kind = 'wallet' AND app_id IS NOT NULL AND partner_id IS NULL)
    )
  )`,
  `CREATE TABLE merchants (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^mer_[A-Za-z0-9]{1,64}$'),
    partner_id text COLLATE "C" NOT NULL REFERENCES partners (id),
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    name text NOT NULL CHECK (name <> ''),
    email text,
    icon_url text,
    deleted boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT merchants_id_partner_mode UNIQUE (id, partner_id, mode)
  )`,
  // API rules §11: an active merchant's name is unique per partner (and mode), case-insensitively.
  `CREATE UNIQUE INDEX merchants_active_name ON merchants (partner_id, mode, lower(name)) WHERE NOT deleted`,
  `CREATE INDEX merchants_listing ON merchants (partner_id, mode, created_at, id)`,
  // A payment's merchant belongs to the same partner and mode (composite foreign key).
  `CREATE TABLE payments (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^pay_[A-Za-z0-9]{1,64}$'),
    partner_id text COLLATE "C" NOT NULL,
    merchant_id text COLLATE "C" NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
    reference_id text NOT NULL CHECK (char_length(reference_id) BETWEEN 1 AND 255),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    value numeric(20, 0) NOT NULL CHECK (value > 0),
    status text NOT NULL CHECK (status IN ('requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled')),
    state_version integer NOT NULL CHECK (state_version >= 1),
    checkout jsonb,
    expires_at bigint NOT NULL,
    commitment jsonb,
    cancelled_reason text CHECK (cancelled_reason IN ('cancelled_by_user', 'cancelled_by_merchant')),
    cancelled_at bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT payments_merchant FOREIGN KEY (merchant_id, partner_id, mode) REFERENCES merchants (id, partner_id, mode),
    CONSTRAINT payments_cancelled CHECK ((cancelled_reason IS NULL) = (cancelled_at IS NULL)),
    CONSTRAINT payments_cancelled_status CHECK ((status = 'cancelled') = (cancelled_reason IS NOT NULL))
  )`,
  `CREATE INDEX payments_listing ON payments (partner_id, mode, created_at, id)`,
  `CREATE INDEX payments_expiry ON payments (status, expires_at)`,
  `CREATE INDEX payments_reference ON payments (partner_id, mode, reference_id)`,
  // The outbox: written in the same transaction as the change it reports; `payload` is the whole
  // event (payment snapshot included) as the domain's JSON encoding.
  `CREATE TABLE outbox_events (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^evt_[A-Za-z0-9]{1,64}$'),
    type text NOT NULL CHECK (type IN (
      'payment.created', 'payment.processing', 'payment.succeeded', 'payment.failed',
      'payment.expired', 'payment.cancelled', 'payment.settled'
    )),
    partner_id text COLLATE "C" NOT NULL,
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    payload jsonb NOT NULL,
    created_at bigint NOT NULL,
    processed_at bigint,
    lease_until bigint
  )`,
  `CREATE INDEX outbox_events_unprocessed ON outbox_events (created_at, id) WHERE processed_at IS NULL`,
  `CREATE INDEX outbox_events_payment ON outbox_events (payment_id)`,
  `CREATE TABLE refunds (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^ref_[A-Za-z0-9]{1,64}$'),
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (id),
    partner_id text COLLATE "C" NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
    tx_hash text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT refunds_one_per_payment UNIQUE (payment_id)
  )`,
  `CREATE TABLE crypto_settlements (
    id text COLLATE "C" PRIMARY KEY CHECK (id ~ '^stl_[A-Za-z0-9]{1,64}$'),
    merchant_id text COLLATE "C" NOT NULL REFERENCES merchants (id),
    asset text NOT NULL,
    destination text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    CONSTRAINT crypto_settlements_merchant_asset UNIQUE (merchant_id, asset)
  )`,
  // API rules §5. `partner_id` is the credential's owner (a partner id, or whatever the HTTP layer
  // scopes gateway keys by), so it has no foreign key. A row with a NULL status is in flight.
  `CREATE TABLE idempotency_keys (
    partner_id text COLLATE "C" NOT NULL,
    route text NOT NULL,
    key text NOT NULL,
    body_sha256 text NOT NULL,
    status_code integer CHECK (status_code BETWEEN 100 AND 499),
    response_body text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (partner_id, route, key),
    CONSTRAINT idempotency_keys_response CHECK ((status_code IS NULL) = (response_body IS NULL))
  )`,
  `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`
]
