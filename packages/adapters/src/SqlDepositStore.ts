/**
 * `DepositStore` on SQL (`deposit_addresses`, `deposit_sweeps`, migration 0013). Sweeps are a
 * queue with leases like the payouts' (`FOR UPDATE SKIP LOCKED` claims); a batch's transaction is
 * recorded on each deposit it covers, all or none, and found again by its hash. "Now" is the
 * Effect `Clock`, in Unix milliseconds. Database failures are defects (the port's contract).
 *
 * @module
 */
import {
  type DepositAddress,
  type DepositKey,
  type GasPaid,
  DepositStore,
  DepositSweep,
  type Mode,
  type PaymentId,
  SignedTransfer,
  sweptPostings,
  type SweptAmount,
  traced
} from "@paygate/domain"
import { Clock, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { recordGas } from "./internal/GasWrites.ts"
import { post } from "./internal/LedgerWrites.ts"
import { toInt, toIntOrNull } from "./internal/Rows.ts"

const spans = {
  ensure: traced("SqlDepositStore.ensure"),
  watched: traced("SqlDepositStore.watched"),
  markDue: traced("SqlDepositStore.markDue"),
  claim: traced("SqlDepositStore.claim"),
  recordSweep: traced("SqlDepositStore.recordSweep"),
  swept: traced("SqlDepositStore.swept"),
  nothingLeft: traced("SqlDepositStore.nothingLeft"),
  abandon: traced("SqlDepositStore.abandon"),
  release: traced("SqlDepositStore.release")
}

// Rolls back a batch's recording when one of its deposits got a sweep meanwhile.
class Taken extends Schema.TaggedError<Taken>()("Taken", {}) {}

interface SweepRow {
  readonly chain_id: string
  readonly address: string
  readonly asset: string
  readonly payment_id: string
  readonly marked_version: unknown
  readonly swept_version: unknown
  readonly tx_hash: string | null
  readonly signed_tx: string | null
  readonly tx_version: unknown
  readonly attempts: unknown
}

const sweepFromRow = (row: SweepRow) =>
  new DepositSweep({
    chainId: row.chain_id,
    address: row.address,
    asset: row.asset,
    paymentId: row.payment_id as PaymentId,
    markedVersion: toInt(row.marked_version),
    sweptVersion: toInt(row.swept_version),
    transfer: row.tx_hash === null || row.signed_tx === null ? null : new SignedTransfer({ txHash: row.tx_hash, raw: row.signed_tx }),
    txVersion: toIntOrNull(row.tx_version),
    attempts: toInt(row.attempts)
  }, { disableChecks: true })

// Marks the deposit's sweep due; answers whether the deposit address exists.
const markDueIn = (sql: SqlClient.SqlClient, key: DepositKey) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const rows = yield* sql`INSERT INTO deposit_sweeps (chain_id, address, asset, payment_id, marked_version, swept_version, due_at, updated_at)
      SELECT chain_id, address, ${key.asset}, payment_id, 1, 0, ${now}::bigint, ${now}::bigint FROM deposit_addresses
      WHERE chain_id = ${key.chainId} AND address = ${key.address.toLowerCase()}
      ON CONFLICT (chain_id, address, asset) DO UPDATE SET
        marked_version = deposit_sweeps.marked_version + 1, due_at = ${now}::bigint, updated_at = ${now}::bigint
      RETURNING address`
    return rows.length > 0
  })

/**
 * The operator's sweep of `key` (any token, one the service does not accept included): due now;
 * answers whether the deposit address exists.
 */
export const sweepOnRequest = (key: DepositKey): Effect.Effect<boolean, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => markDueIn(sql, key)).pipe(Effect.orDie)

/** Builds the store over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // The statement's snapshot does not see its own insert: the address is the inserted one or the one on record.
  const ensure = (deposit: DepositAddress) =>
    sql<{ readonly address: string }>`WITH inserted AS (
        INSERT INTO deposit_addresses (chain_id, address, payment_id, created_at)
        VALUES (${deposit.chainId}, ${deposit.address.toLowerCase()}, ${deposit.paymentId}, ${deposit.createdAt}::bigint)
        ON CONFLICT DO NOTHING RETURNING address)
      SELECT address FROM inserted
      UNION ALL SELECT address FROM deposit_addresses WHERE payment_id = ${deposit.paymentId} AND chain_id = ${deposit.chainId}`.pipe(
      Effect.map((rows) => rows[0]?.address ?? deposit.address.toLowerCase()),
      Effect.orDie,
      spans.ensure
    )

  const watched = (chainId: string, sinceMillis: number) =>
    sql<{ readonly address: string; readonly payment_id: string; readonly created_at: unknown }>`SELECT a.address, a.payment_id, a.created_at
      FROM deposit_addresses a WHERE a.chain_id = ${chainId} AND (a.created_at >= ${sinceMillis}::bigint
        OR NOT EXISTS (SELECT 1 FROM deposit_sweeps s WHERE s.chain_id = a.chain_id AND s.address = a.address)
        OR EXISTS (SELECT 1 FROM deposit_sweeps s WHERE s.chain_id = a.chain_id AND s.address = a.address
          AND (s.marked_version > s.swept_version OR s.updated_at >= ${sinceMillis}::bigint)))
      ORDER BY a.created_at`.pipe(
      Effect.map((rows) =>
        rows.map((row): DepositAddress => ({
          chainId,
          address: row.address,
          paymentId: row.payment_id as PaymentId,
          createdAt: toInt(row.created_at)
        }))
      ),
      Effect.orDie,
      spans.watched
    )

  const markDue = (key: DepositKey) => Effect.asVoid(markDueIn(sql, key)).pipe(Effect.orDie, spans.markDue)

  const claim = (limit: number, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<SweepRow>`UPDATE deposit_sweeps SET lease_until = ${now + leaseMillis}::bigint
        WHERE (chain_id, address, asset) IN (
          SELECT chain_id, address, asset FROM deposit_sweeps
          WHERE marked_version > swept_version AND due_at <= ${now}::bigint AND coalesce(lease_until, 0) <= ${now}::bigint
          ORDER BY due_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING chain_id, address, asset, payment_id, marked_version, swept_version, tx_hash, signed_tx, tx_version, attempts`
      return rows.map(sweepFromRow)
    }).pipe(Effect.orDie, spans.claim)

  const recordSweep = (sweeps: ReadonlyArray<DepositSweep>, signed: SignedTransfer) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const s of sweeps) {
        const rows = yield* sql`UPDATE deposit_sweeps
          SET tx_hash = ${signed.txHash}, signed_tx = ${signed.raw}, tx_version = ${s.markedVersion}, updated_at = ${now}::bigint
          WHERE chain_id = ${s.chainId} AND address = ${s.address} AND asset = ${s.asset} AND tx_hash IS NULL
          RETURNING address`
        if (rows.length === 0) return yield* new Taken()
      }
      return true
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("Taken", () => Effect.succeed(false)),
      Effect.orDie,
      spans.recordSweep
    )

  const swept = (txHash: string, moved: ReadonlyArray<SweptAmount>, gas?: GasPaid) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly asset: string; readonly mode: Mode }>`UPDATE deposit_sweeps
        SET swept_version = GREATEST(swept_version, tx_version),
          tx_hash = NULL, signed_tx = NULL, tx_version = NULL, due_at = ${now}::bigint, updated_at = ${now}::bigint
        WHERE tx_hash = ${txHash}
        RETURNING asset, (SELECT mode FROM payments WHERE id = deposit_sweeps.payment_id) AS mode`
      // Followed by one worker only: another finding it swept already moves nothing twice.
      if (rows.length > 0) {
        yield* post(sql, rows[0]!.mode, "sweep", txHash.toLowerCase(), sweptPostings(rows[0]!.asset, moved))
        yield* recordGas(sql, rows[0]!.mode, "sweep", txHash.toLowerCase(), gas)
      }
    }).pipe(sql.withTransaction, Effect.orDie, spans.swept)

  const nothingLeft = (sweep: DepositSweep) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE deposit_sweeps SET swept_version = GREATEST(swept_version, ${sweep.markedVersion}), updated_at = ${now}::bigint
        WHERE chain_id = ${sweep.chainId} AND address = ${sweep.address} AND asset = ${sweep.asset} AND tx_hash IS NULL`
    }).pipe(Effect.orDie, spans.nothingLeft)

  const abandon = (txHash: string, reason: string, gas?: GasPaid) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql<{ readonly mode: Mode }>`UPDATE deposit_sweeps SET tx_hash = NULL, signed_tx = NULL, tx_version = NULL,
          attempts = attempts + 1, last_error = ${reason}, updated_at = ${now}::bigint
        WHERE tx_hash = ${txHash}
        RETURNING (SELECT mode FROM payments WHERE id = deposit_sweeps.payment_id) AS mode`
      if (rows.length > 0) yield* recordGas(sql, rows[0]!.mode, "sweep", txHash.toLowerCase(), gas)
    }).pipe(sql.withTransaction, Effect.orDie, spans.abandon)

  const release = (key: DepositKey, afterMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE deposit_sweeps SET lease_until = NULL, due_at = ${now + afterMillis}::bigint
        WHERE chain_id = ${key.chainId} AND address = ${key.address} AND asset = ${key.asset}`
    }).pipe(Effect.orDie, spans.release)

  return DepositStore.of({ ensure, watched, markDue, claim, recordSweep, swept, nothingLeft, abandon, release })
})

/** The store over the `SqlClient` in context. */
export const layer: Layer.Layer<DepositStore, never, SqlClient.SqlClient> = Layer.effect(DepositStore, make)
