/**
 * Crypto settlement destinations from their `crypto_settlements` rows: read by the settlement store
 * and, for a settlement decision, by the payout store.
 *
 * @module
 */
import { CryptoSettlement } from "@paygate/domain"
import { Schema } from "effect"
import { toInt } from "./Rows.ts"

const decodeSettlement = Schema.decodeUnknownSync(CryptoSettlement)

/** A `crypto_settlements` row as the domain's value. */
export const settlementFromRow = (row: Record<string, unknown>): CryptoSettlement =>
  decodeSettlement({
    id: row.id,
    merchantId: row.merchant_id,
    asset: row.asset,
    destination: row.destination,
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at),
    usableFrom: toInt(row.usable_from)
  })
