/**
 * The plans of the hot statements at size: the statements the adapters send (recorded as they run,
 * so the test follows the code), each run under `EXPLAIN (ANALYZE, FORMAT JSON)` on a PostgreSQL
 * holding tens of thousands of payments (one partner dominant, as in `test/support/BulkPayments.ts`)
 * with their events, deliveries, idempotency keys, dashboard sessions and deposit sweeps. None may read a large
 * table whole (`Seq Scan`) or walk an index past many rows it then drops: either grows with the
 * table and not with the response.
 */
import {
  type ApiKeyId,
  ChainWork,
  DashboardSessionStore,
  DeliveryQueue,
  EventOutbox,
  ExpiringPayments,
  IdempotencyStore,
  type Merchant,
  type PaymentId,
  PaymentRepository,
  PayoutRepository,
  PayoutWork
} from "@paygate/domain"
import { CredentialAdmin } from "@paygate/adapters"
import { assert, layer } from "@effect/vitest"
import { Data, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { bulkPaymentId, bulkPayments } from "../../../test/support/BulkPayments.ts"
import * as SqlChainWork from "../src/SqlChainWork.ts"
import * as SqlPayoutWork from "../src/SqlPayoutWork.ts"
import * as SecretCipher from "../src/webhooks/SecretCipher.ts"
import * as SqlDeliveryQueue from "../src/webhooks/SqlDeliveryQueue.ts"
import * as SqlExpiringPayments from "../src/webhooks/SqlExpiringPayments.ts"
import { adapterLayer } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner } from "./support/Fixtures.ts"
import { recordingStatements, type SentStatement } from "./support/StatementLog.ts"
import { databasesUnderTest } from "./support/TestDatabase.ts"

/** Bulk payments seeded; enough that the planner prefers an index wherever one serves. */
const size = 30_000

/** The tables that grow with the business; a hot statement never reads one whole. */
const largeTables = ["payments", "outbox_events", "webhook_deliveries", "idempotency_keys", "dashboard_sessions", "deposit_sweeps"]

/** Rows a scan may read and drop (its filter's leftovers) before it counts as walking the table. */
const maxDropped = 1_000

const now = Date.now()

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Rows Removed by Filter"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** What is wrong with a plan: each scan of a large table that reads it whole or drops many rows. */
const findingsOf = (plan: PlanNode): ReadonlyArray<string> =>
  nodesOf(plan).flatMap((node) => {
    const table = node["Relation Name"]
    if (table === undefined || !largeTables.includes(table)) return []
    if (node["Node Type"] === "Seq Scan") return [`Seq Scan on ${table}`]
    const dropped = node["Rows Removed by Filter"] ?? 0
    return dropped > maxDropped ? [`${node["Node Type"]} on ${table} (${node["Index Name"] ?? "?"}) dropped ${dropped} rows`] : []
  })

/** Carries a plan out of the transaction it ran in, which is rolled back: claims and deletes change nothing. */
class Explained extends Data.TaggedError("Explained")<{ readonly plan: PlanNode }> {}

const explain = (statement: SentStatement) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      // An insert ran already when it was recorded (run again it would clash with itself): its plan only.
      const analyze = /^\s*INSERT\b/i.test(statement.sql) ? "" : "ANALYZE, "
      const rows = yield* sql.unsafe<Record<string, unknown>>(`EXPLAIN (${analyze}FORMAT JSON) ${statement.sql}`, statement.params)
      const cell = rows[0]?.["QUERY PLAN"]
      const [document] = (typeof cell === "string" ? JSON.parse(cell) : cell) as ReadonlyArray<{ readonly Plan: PlanNode }>
      return yield* new Explained({ plan: document!.Plan })
    }))).pipe(Effect.catchTag("Explained", (explained) => Effect.succeed(explained.plan)), Effect.orDie)

/** Seeds the size: bulk payments of `merchant`'s partner and others, one processed event and one delivery each. */
const seed = (merchant: Merchant, keyId: ApiKeyId) =>
  Effect.gen(function*() {
    const client = yield* SqlClient.SqlClient
    for (const statement of bulkPayments({ partnerId: merchant.partnerId, merchantId: merchant.id, mode: "sandbox", now }, 0, size)) {
      yield* client.unsafe(statement.text, statement.params)
    }
    yield* client`INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at, processed_at)
      SELECT 'evt_' || substr(id, 5), 'payment.created', partner_id, id,
        jsonb_build_object('id', 'evt_' || substr(id, 5), 'type', 'payment.created', 'createdAt', created_at), created_at, created_at + 50
      FROM payments`
    yield* client`INSERT INTO webhook_endpoints (id, partner_id, mode, url, events, secret_ciphertext, status, api_version, created_at, updated_at)
      VALUES ('whe_plans', ${merchant.partnerId}, 'sandbox', 'https://example.com/hook', '[]', 'unused', 'active', '2026-02-18', ${now}::bigint, ${now}::bigint)`
    yield* client`INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint_id, redelivery, status, attempts, created_at, updated_at)
      SELECT 'dlv_' || substr(id, 5), id, type, 'whe_plans', false, 'succeeded', 1, created_at + 50, created_at + 80 FROM outbox_events`
    // Keys of the last 25 hours: the oldest past their 24, as between two rounds of the cleanup.
    yield* client`INSERT INTO idempotency_keys (partner_id, route, key, body_sha256, status_code, response_body, created_at, expires_at)
      SELECT ${merchant.partnerId}, 'POST /v1/merchant/payment', 'key-' || n, repeat('0', 64), 200, '{}',
        ${now}::bigint - n * 3000, ${now}::bigint - n * 3000 + 86400000
      FROM generate_series(1, ${size}) AS n`
    // Sessions opened over the last 25 minutes, none past either expiry: each sign-in's cleanup keeps it so.
    yield* client`INSERT INTO dashboard_sessions (token_sha256, key_id, created_at, idle_expires_at, expires_at)
      SELECT lpad(to_hex(n), 64, '0'), ${keyId}, ${now}::bigint - n * 50, ${now}::bigint + 1800000 - n * 50,
        ${now}::bigint + 43200000 - n * 50
      FROM generate_series(1, ${size}) AS n`
    // A deposit address and its sweep, swept, for each payment: the deposits of the past, which settlement
    // consults by payment.
    yield* client`INSERT INTO deposit_addresses (chain_id, address, payment_id, created_at)
      SELECT 'eip155:1', '0x' || lpad(to_hex(row_number() OVER (ORDER BY id)), 40, '0'), id, created_at FROM payments`
    yield* client`INSERT INTO deposit_sweeps (chain_id, address, asset, payment_id, marked_version, swept_version, due_at, updated_at)
      SELECT chain_id, address, 'eip155:1/erc20:0x' || repeat('a', 40), payment_id, 1, 1, created_at, created_at FROM deposit_addresses`
    yield* client`ANALYZE`
  })

const layerUnderTest = (db: (typeof databasesUnderTest)[number]) =>
  Layer.mergeAll(SqlChainWork.layer, SqlPayoutWork.layer, SqlExpiringPayments.layer, SqlDeliveryQueue.layer).pipe(
    Layer.provide(SecretCipher.layerKey(new Uint8Array(32))),
    Layer.provideMerge(adapterLayer(db))
  )

type Services = Layer.Success<ReturnType<typeof layerUnderTest>>

// Only a PostgreSQL plans like production (PGlite is the embedded single-session database).
for (const db of databasesUnderTest.filter((d) => d.name === "PostgreSQL")) {
  layer(layerUnderTest(db), { excludeTestServices: true, timeout: "120 seconds" })(`Hot statements at size [${db.name}]`, (it) => {
    it.effect("read no large table whole and walk no index past rows they drop", () =>
      Effect.gen(function*() {
        const partner = yield* newPartner("Dominant partner")
        const main = yield* newMerchant(partner)
        // A new shop of the dominant partner: fewer payments than a page, so its listing must not walk the partner's.
        const small = yield* newMerchant(partner)
        const { keyId } = yield* (yield* CredentialAdmin).createApiKey({ kind: "partner", partnerId: partner.id, mode: "sandbox" }).pipe(Effect.orDie)
        yield* seed(main, keyId)
        const partnerId = partner.id
        const payments = yield* PaymentRepository
        const page = { partnerId, mode: "sandbox", order: "desc", limit: 21 } as const
        const deep = { createdAt: now - 3_600_000 - 20_000 * 30_000, id: bulkPaymentId(20_000) }
        const hot: ReadonlyArray<readonly [string, Effect.Effect<unknown, never, Services>]> = [
          ["payment status", payments.findById(bulkPaymentId(12_345) as PaymentId)],
          ["partner listing, first page", payments.list({ ...page, after: null })],
          ["partner listing, deep cursor", payments.list({ ...page, after: deep })],
          ["partner listing by status", payments.list({ ...page, statuses: ["failed"], after: null })],
          ["merchant listing, small merchant", payments.list({ ...page, merchantId: small.id, after: null })],
          ["merchant listing, deep cursor", payments.list({ ...page, merchantId: main.id, after: deep })],
          ["payment expiry job", Effect.flatMap(ExpiringPayments, (e) => e.due(Math.floor(now / 1000), 100))],
          ["chain work claim", Effect.flatMap(ChainWork, (w) => w.claim(50, 60_000))],
          ["payouts claim", Effect.flatMap(PayoutWork, (w) => w.claim(50, 60_000))],
          ["settlements to decide", Effect.flatMap(PayoutRepository, (r) => r.undecided(50))],
          ["outbox claim", Effect.flatMap(EventOutbox, (o) => o.claim(50, 60_000))],
          ["outbox, events no one receives", Effect.flatMap(EventOutbox, (o) => o.completeUnaddressed(50))],
          ["deliveries claim", Effect.flatMap(DeliveryQueue, (q) => q.claim({ limit: 50, leaseMillis: 60_000, perEndpoint: 4 }))],
          [
            "idempotency claim",
            Effect.flatMap(IdempotencyStore, (s) => s.claim({ partnerId, route: "POST /v1/merchant/payment", key: "key-77" }, "f".repeat(64), now))
          ],
          ["idempotency cleanup", Effect.flatMap(IdempotencyStore, (s) => s.purgeExpired(now, 500))],
          [
            "dashboard session cleanup",
            Effect.flatMap(DashboardSessionStore, (s) =>
              s.create({ tokenSha256: "f".repeat(64), keyId, createdAt: now, idleExpiresAt: now + 1_800_000, expiresAt: now + 43_200_000 }))
          ]
        ]
        const findings: Array<string> = []
        let explained = 0
        for (const [name, operation] of hot) {
          const [, sent] = yield* recordingStatements(operation)
          assert.isAbove(sent.length, 0, `${name} sent no statement`)
          for (const statement of sent) {
            explained++
            for (const finding of findingsOf(yield* explain(statement))) findings.push(`${name}: ${finding}\n  ${statement.sql.replace(/\s+/g, " ")}`)
          }
        }
        assert.isAbove(explained, hot.length - 1)
        assert.deepStrictEqual(findings, [])
      }))
  })
}
