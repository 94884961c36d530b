/**
 * `PayoutLimits` over the chain configuration's `limits` (`chain/PayoutLimitSettings.ts`) and the
 * `payouts` table: a settlement over `perPayout`, a refund payout over `perRefund`, or a payout
 * that would bring the UTC day's total of its token on its chain over `perDay` is answered with
 * a reason an owner reads before approving, e.g. `refund of 1,500.00 USDC — over the 1,000.00
 * USDC per-refund limit`. The day's total is the token's payouts whose signed transfer is recorded
 * and still pending (in flight, whenever signed) and those completed since 00:00 UTC, approved
 * ones included; never a failed one, nor one not signed yet; the payout itself is counted once,
 * as the one to send. "Now" is the Effect `Clock`.
 *
 * `admit` takes a transaction-scoped advisory lock on the token (its asset id in lower case), then
 * reads the day's total and records the transfer in that same transaction: another process's
 * `admit` of the token waits until the first commits, and then counts its transfer.
 *
 * @module
 */
import { Money, type Payout, PayoutLimits, traced } from "@paygate/domain"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ChainsConfig, lookupAsset } from "./chain/ChainConfig.ts"

const dayMillis = 86_400_000

const spans = { exceeded: traced("SqlPayoutLimits.exceeded"), admit: traced("SqlPayoutLimits.admit") }

// The first key of the advisory locks taken here (the second is the token's): other locks use other first keys.
const lockSpace = 28

/** `value` base units as people read them: thousands grouped, at least two decimals (when the token has them), no trailing zeros beyond. */
export const readable = (value: bigint, decimals: number): string => {
  const [whole, fraction = ""] = Money.formatMinor(value, decimals).split(".")
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const kept = fraction.replace(/0+$/, "").padEnd(Math.min(2, decimals), "0")
  return kept === "" ? grouped : `${grouped}.${kept}`
}

/** Builds the limits over the `SqlClient` and chain configuration in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const chains = yield* ChainsConfig

  const reasonFor = (payout: Payout) =>
    Effect.gen(function*() {
      const limits = chains.limits.get(payout.asset.toLowerCase())
      const found = lookupAsset(chains, payout.asset)
      if (limits === undefined || found === undefined) return undefined
      const { symbol, decimals } = found.asset
      const amount = (value: bigint) => `${readable(value, decimals)} ${symbol}`
      const each = payout.kind === "refund" ? limits.perRefund : limits.perPayout
      if (each !== undefined && payout.value > each) {
        return `${payout.kind} of ${amount(payout.value)} — over the ${amount(each)} ${payout.kind === "refund" ? "per-refund" : "per-payout"} limit`
      }
      if (limits.perDay === undefined) return undefined
      const now = yield* Clock.currentTimeMillis
      const [row] = yield* sql<{ readonly total: string }>`SELECT coalesce(sum(value), 0)::text AS total FROM payouts
        WHERE asset = ${payout.asset} AND status <> 'failed'
          AND NOT (payment_id = ${payout.paymentId} AND kind = ${payout.kind} AND leg = ${payout.leg})
          AND ((status = 'completed' AND completed_at >= ${now - (now % dayMillis)}::bigint) OR (status = 'pending' AND tx_hash IS NOT NULL))`
      const total = BigInt(row!.total) + payout.value
      return total > limits.perDay
        ? `${payout.kind} of ${amount(payout.value)} — today's (UTC) payouts would reach ${amount(total)}, over the ${amount(limits.perDay)} per-day limit`
        : undefined
    })

  const exceeded = (payout: Payout) => reasonFor(payout).pipe(Effect.orDie, spans.exceeded)

  // Each token's payouts are admitted one at a time across processes: the lock is held until the record commits.
  const admit = (payout: Payout, record: Effect.Effect<boolean>) =>
    Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${lockSpace}, hashtext(${payout.asset.toLowerCase()}))`
      const over = payout.approvedAt === null ? yield* reasonFor(payout) : undefined
      return over ?? (yield* record)
    }).pipe(sql.withTransaction, Effect.orDie, spans.admit)

  return PayoutLimits.of({ exceeded, admit })
})

/** `PayoutLimits` over the `SqlClient` and chain configuration in context. */
export const layer: Layer.Layer<PayoutLimits, never, SqlClient.SqlClient | ChainsConfig> = Layer.effect(PayoutLimits, make)
