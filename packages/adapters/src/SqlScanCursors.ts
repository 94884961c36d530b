/**
 * `ScanCursors` on SQL (`chain_cursors`, migration 0010; its checkpoints in `chain_checkpoints`, migration 0025,
 * written with each move and the newest {@link keptCheckpoints} kept). A claim creates the chain's row when it
 * is missing, then takes the lease only if it is free, ended, or already the claimer's: the row lock
 * makes two claimers of a free chain wait for each other, and the second then sees the first's lease.
 * "Now" is the Effect `Clock`, in Unix milliseconds.
 *
 * @module
 */
import { type ScanCursor, ScanCursors, traced } from "@paygate/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { toIntOrNull } from "./internal/Rows.ts"

const spans = {
  claim: traced("SqlScanCursors.claim"),
  advance: traced("SqlScanCursors.advance"),
  release: traced("SqlScanCursors.release"),
  checkpoints: traced("SqlScanCursors.checkpoints")
}

/** Checkpoints kept per chain: thousands of blocks back, one per range the watcher read. */
export const keptCheckpoints = 1_000

/** Builds the cursors over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const claim = (chainId: string, holder: string, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO chain_cursors (chain_id, updated_at) VALUES (${chainId}, ${now}::bigint) ON CONFLICT (chain_id) DO NOTHING`
      const rows = yield* sql<{ readonly next_block: unknown; readonly last_hash: string | null }>`UPDATE chain_cursors
        SET holder = ${holder}, lease_until = ${now + leaseMillis}::bigint
        WHERE chain_id = ${chainId} AND (holder IS NULL OR holder = ${holder} OR coalesce(lease_until, 0) <= ${now}::bigint)
        RETURNING next_block, last_hash`
      return Option.map(Option.fromNullishOr(rows[0]), (row): ScanCursor => ({
        nextBlock: toIntOrNull(row.next_block),
        lastHash: row.last_hash
      }))
    }).pipe(Effect.orDie, spans.claim)

  const advance = (chainId: string, holder: string, cursor: ScanCursor, leaseMillis: number) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql`UPDATE chain_cursors
        SET next_block = ${cursor.nextBlock}::bigint, last_hash = ${cursor.lastHash}, lease_until = ${now + leaseMillis}::bigint,
          updated_at = ${now}::bigint
        WHERE chain_id = ${chainId} AND holder = ${holder} AND lease_until > ${now}::bigint
        RETURNING chain_id`
      if (rows.length === 0) return false
      if (cursor.nextBlock !== null && cursor.lastHash !== null) {
        yield* sql`INSERT INTO chain_checkpoints (chain_id, block_number, block_hash)
          VALUES (${chainId}, ${cursor.nextBlock - 1}::bigint, ${cursor.lastHash})
          ON CONFLICT (chain_id, block_number) DO UPDATE SET block_hash = EXCLUDED.block_hash`
        yield* sql`DELETE FROM chain_checkpoints c USING (
            SELECT block_number, row_number() OVER (ORDER BY block_number DESC) AS place
            FROM chain_checkpoints WHERE chain_id = ${chainId}
          ) o
          WHERE c.chain_id = ${chainId} AND c.block_number = o.block_number AND o.place > ${keptCheckpoints}::bigint`
      }
      return true
    }).pipe(sql.withTransaction, Effect.orDie, spans.advance)

  const checkpoints = (chainId: string) =>
    Effect.map(
      sql<{ readonly block_number: unknown; readonly block_hash: string }>`SELECT block_number, block_hash FROM chain_checkpoints
        WHERE chain_id = ${chainId} ORDER BY block_number DESC`,
      (rows) => rows.map((row) => ({ blockNumber: Number(row.block_number), hash: row.block_hash }))
    ).pipe(Effect.orDie, spans.checkpoints)

  const release = (chainId: string, holder: string) =>
    sql`UPDATE chain_cursors SET holder = NULL, lease_until = NULL WHERE chain_id = ${chainId} AND holder = ${holder}`.pipe(
      Effect.asVoid,
      Effect.orDie,
      spans.release
    )

  return ScanCursors.of({ claim, advance, checkpoints, release })
})

/** `ScanCursors` over the `SqlClient` in context. */
export const layer: Layer.Layer<ScanCursors, never, SqlClient.SqlClient> = Layer.effect(ScanCursors, make)
