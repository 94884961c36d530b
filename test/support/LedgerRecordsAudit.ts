/**
 * The ledger audit (`LedgerBalances.audit`: the ledger against the receipts, payouts and receipt
 * refunds) of every database a test server or world leaves, run as it closes: a finding fails the
 * test that left it. Each audit is tallied in the file the global set-up names, and the run ends
 * with the total (test/setup/prerequisites.ts), so the whole suite's ledgers are accounted for.
 */
import type { LedgerAuditReport } from "@paygate/domain"
import { appendFileSync } from "node:fs"

/** The file the tallies go to (set by the global set-up; absent when a file runs outside it). */
export const auditTallyVariable = "PAYGATE_TEST_LEDGER_AUDITS"

/** What one tally line holds: a database's audit, or a chain window's comparison (`ChainLedgerWindows`). */
export type AuditTally =
  | { readonly _tag: "records"; readonly where: string; readonly report: LedgerAuditReport }
  | { readonly _tag: "chain"; readonly where: string; readonly lines: number; readonly findings: number }

/** Adds `entry` to the run's tally (nothing outside the global set-up). */
export const tallyAudit = (entry: AuditTally) => {
  const tally = process.env[auditTallyVariable]
  if (tally !== undefined) appendFileSync(tally, `${JSON.stringify(entry)}\n`)
}

/** Audits with `audit`, tallies the report, and throws when it has findings (`where` names the database). */
export const checkLedgerRecords = async (audit: () => Promise<LedgerAuditReport>, where: string) => {
  const report = await audit()
  tallyAudit({ _tag: "records", where, report })
  if (report.findings.length > 0) {
    throw new Error(`the ledger of ${where} disagrees with its records:\n${report.findings.slice(0, 20).join("\n")}`)
  }
}
