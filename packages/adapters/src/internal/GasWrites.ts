/**
 * Recording gas the service paid (`gas_spent`, migration 0021) inside the caller's transaction: the
 * one that stores the state change observing the mined receipt. A transaction's gas is recorded and
 * posted to the ledger once (its key is the chain and hash), however often it is observed.
 *
 * @module
 */
import { type GasOperation, type GasPaid, gasPostings, type Mode } from "@paygate/domain"
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { post } from "./LedgerWrites.ts"

/** Records `gas` (if any) for `operation` on `subjectId` in `mode`, and posts it to the ledger the first time. */
export const recordGas = (
  sql: SqlClient.SqlClient,
  mode: Mode,
  operation: GasOperation,
  subjectId: string,
  gas: GasPaid | undefined
) =>
  Effect.gen(function*() {
    if (gas === undefined) return
    const now = yield* Clock.currentTimeMillis
    const txHash = gas.txHash.toLowerCase()
    const inserted = yield* sql`INSERT INTO gas_spent (chain_id, tx_hash, mode, operation, subject_id, asset, payer,
        gas_used, effective_gas_price, amount, recorded_at)
      VALUES (${gas.chainId}, ${txHash}, ${mode}, ${operation}, ${subjectId}, ${gas.asset}, ${gas.payer.toLowerCase()},
        ${gas.gasUsed.toString()}::numeric, ${gas.effectiveGasPrice.toString()}::numeric, ${gas.amount.toString()}::numeric, ${now}::bigint)
      ON CONFLICT (chain_id, tx_hash) DO NOTHING RETURNING tx_hash`
    if (inserted.length > 0) yield* post(sql, mode, "gas", `${gas.chainId}:${txHash}`, gasPostings(gas))
  })
