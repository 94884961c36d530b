import { decimal, type ExportLine } from "./ExportFormat.ts"

/**
 * What moves a merchant's account in the ledger, by the movement that posted it: transfers that
 * arrived (what their payments kept, underpaid parts a later transfer completed too), transfers a
 * reorganisation removed, settlements and refunds paid out.
 */
export const movementKinds = ["received", "reversed", "settled", "refunded"] as const

/** A kind of {@link movementKinds}. */
export type MovementKind = (typeof movementKinds)[number]

/**
 * One merchant's account in one token over a period [from, to), from the ledger's entries: what it
 * was owed before `from`, each kind of movement in the period (signed: what left is negative), and
 * what it was owed before `to`. Token base units, exact; `closing` is `opening` plus the movements.
 */
export interface BalanceStatement extends Readonly<Record<MovementKind, bigint>> {
  readonly merchantId: string
  /** CAIP-19 token. */
  readonly asset: string
  readonly opening: bigint
  readonly closing: bigint
}

const amounts = ["opening", ...movementKinds, "closing"] as const

/** The columns of the `balances` export, in order (docs/exports.md describes each). */
export const balanceColumns = [
  "merchant_id",
  "token_asset",
  "network",
  "from",
  "to",
  ...amounts.flatMap((name) => [name, `${name}_base_units`] as const)
] as const

/** Whether the entries' own sums agree: `closing` is `opening` plus every movement. */
export const statementAddsUp = (s: BalanceStatement): boolean =>
  s.closing === movementKinds.reduce((sum, kind) => sum + s[kind], s.opening)

/** A statement as exported: each amount in whole tokens (empty for a token the service does not know) and in base units. */
export const balanceLine = (
  s: BalanceStatement,
  tokenDecimals: number | undefined,
  period: { readonly fromMillis: number; readonly toMillis: number }
): ExportLine<typeof balanceColumns> => {
  const cells: Record<string, string | null> = {
    merchant_id: s.merchantId,
    token_asset: s.asset,
    network: s.asset.slice(0, s.asset.indexOf("/")),
    from: new Date(period.fromMillis).toISOString(),
    to: new Date(period.toMillis).toISOString()
  }
  for (const name of amounts) {
    cells[name] = tokenDecimals === undefined ? null : decimal(s[name], tokenDecimals)
    cells[`${name}_base_units`] = s[name].toString()
  }
  return cells as ExportLine<typeof balanceColumns>
}
