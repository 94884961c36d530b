import { Clock, Effect } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"
import type { PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"
import { LedgerBalances } from "../ports/LedgerBalances.ts"
import { type HeldFunds, PaymentVolume } from "../ports/PaymentVolume.ts"

/** How many days back the volume chart can reach, today included. */
export const maxVolumeDays = 366

const dayMs = 86_400_000

/** What the merchants are owed, summed per token (those owed nothing left out), by token. */
const heldOf = (balances: ReadonlyArray<{ readonly asset: string; readonly owed: bigint }>): ReadonlyArray<HeldFunds> => {
  const sums = new Map<string, bigint>()
  for (const { asset, owed } of balances) sums.set(asset, (sums.get(asset) ?? 0n) + owed)
  return [...sums.entries()].filter(([, value]) => value !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([asset, value]) => ({ asset, value }))
}

/**
 * `GET /v1/balance`, over the `PaymentVolume` and `LedgerBalances` in context: totals over all of
 * the partner's payments in its mode, and the payments per UTC day over the last `days` days (today
 * included). `days` is a decimal 1..{@link maxVolumeDays} (default 30); `since` and `until` bound
 * those days (Unix ms). What is `held` is the ledger's: what its merchants are owed, per token.
 */
export const volumeSummaries = Effect.gen(function*() {
  const volume = yield* PaymentVolume
  const ledger = yield* LedgerBalances
  return (access: { readonly partnerId: PartnerId; readonly mode: Mode }, days: string | undefined) =>
  Effect.gen(function*() {
    const count = days === undefined ? 30 : /^[0-9]{1,3}$/.test(days) ? Number(days) : 0
    if (count < 1 || count > maxVolumeDays) {
      return yield* new InvalidParams({ message: `days must be a whole number from 1 to ${maxVolumeDays}.` })
    }
    const now = yield* Clock.currentTimeMillis
    const since = (Math.floor(now / dayMs) - count + 1) * dayMs
    const summary = yield* volume.summarize({ ...access, since })
    const held = heldOf(yield* ledger.merchantBalances(access.partnerId, access.mode))
    return { ...summary, held, since, until: Math.floor(now / dayMs) * dayMs + dayMs }
  })
})
