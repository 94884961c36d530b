/**
 * Vitest global set-up: everything the suites need from the machine, found or installed before any
 * test file runs, so that `npm test` alone passes on a fresh machine (README: two commands).
 *
 * - Chromium (the browser suites): `CHROMIUM_PATH`, else Debian's headless shell (`ChromiumPath.ts`). Missing and
 *   running as root: installed with apt-get (one progress line, then apt's own lines). Missing
 *   otherwise: the run stops with the one command to type. The browser suites are never skipped.
 * - PostgreSQL (every suite that runs on PGlite and PostgreSQL): `TEST_DATABASE_URL` when it is set,
 *   else a throwaway PostgreSQL 15 (`test/support/ThrowawayPostgres.ts`: `scripts/ci-postgres.sh`, which
 *   installs the Debian package when it is missing) stopped when the run ends. The PostgreSQL suites are never skipped.
 *
 * It builds the service (`scripts/build.ts`: what `npm start` and `npm run worker` run) and then makes the migrated databases the test servers and the tests' `npm start`s start from (`MigratedTemplates.ts`).
 * Test workers are started after this returns and inherit `process.env`, so they see all three. When the
 * run ends it prints the total of the ledger audits the tests' databases passed (`LedgerRecordsAudit`).
 */
import { spawn } from "node:child_process"
import { accessSync, constants, existsSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureBuilt } from "../../scripts/build.ts"
import { chromiumPackage, chromiumPath } from "../support/ChromiumPath.ts"
import { type AuditTally, auditTallyVariable } from "../support/LedgerRecordsAudit.ts"
import { prepareMigratedTemplates } from "../support/MigratedTemplates.ts"
import { startThrowawayPostgres } from "../support/ThrowawayPostgres.ts"

const say = (line: string) => process.stderr.write(`npm test: ${line}\n`)

const isRoot = () => process.getuid?.() === 0

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Runs a command with its output on our stderr (apt-get's progress); rejects on a non-zero exit. */
const visibly = (command: string, args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", process.stderr, process.stderr],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    })
    child.once("error", reject)
    child.once("exit", (code) => code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`)))
  })

/** The first line of an error, for a message a person reads. */
const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]

const ensureChromium = async () => {
  const path = chromiumPath()
  if (executable(path)) return
  if (process.env.CHROMIUM_PATH !== undefined || !isRoot()) {
    throw new Error(
      `Chromium is needed by the browser tests and ${path} does not exist: run \`sudo apt-get install -y ${chromiumPackage}\`` +
        ` (or set CHROMIUM_PATH to a Chromium executable), then npm test again.`
    )
  }
  say(`Chromium is missing: installing Debian's ${chromiumPackage} with apt-get (about a minute, once per machine)…`)
  try {
    await visibly("apt-get", ["update"])
    await visibly("apt-get", ["install", "-y", "--no-install-recommends", chromiumPackage])
  } catch (error) {
    throw new Error(`could not install Chromium (${firstLine(error)}): run \`apt-get install -y ${chromiumPackage}\` yourself, then npm test again.`)
  }
  if (!executable(path)) throw new Error(`apt-get installed ${chromiumPackage} but ${path} is still missing: set CHROMIUM_PATH.`)
  say(`Chromium installed at ${path}.`)
}

const pgBin = "/usr/lib/postgresql/15/bin"

/** Starts a throwaway server (`ThrowawayPostgres`, the fault tests' helper); returns how to stop it. */
const startPostgres = async (): Promise<() => Promise<void>> => {
  if (!executable(join(pgBin, "initdb")) && !isRoot()) {
    throw new Error(
      "PostgreSQL 15 is needed by the PostgreSQL suites: run `sudo apt-get install -y postgresql-15`" +
        " (or set TEST_DATABASE_URL to a server you run), then npm test again."
    )
  }
  say(executable(join(pgBin, "initdb"))
    ? "starting a throwaway PostgreSQL 15 for this run…"
    : "PostgreSQL 15 is missing: installing Debian's postgresql-15 with apt-get, then starting a throwaway server…")
  const server = await startThrowawayPostgres().catch((error: unknown) => {
    throw new Error(`could not start PostgreSQL (${firstLine(error)}); set TEST_DATABASE_URL to a server you run instead.`)
  })
  process.env.TEST_DATABASE_URL = server.url
  say(`PostgreSQL ready (TEST_DATABASE_URL=${server.url}).`)
  return server.stop
}

/** The ledger audits the test servers and worlds ran as they closed (`LedgerRecordsAudit`, `ChainLedgerWindows`), added up. */
const auditTotal = (file: string) => {
  if (!existsSync(file)) return "no test left a database with a ledger"
  const entries = readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as AuditTally)
  const reports = entries.flatMap((e) => e._tag === "records" ? [e.report] : [])
  const windows = entries.flatMap((e) => e._tag === "chain" ? [e] : [])
  const sum = <A>(of: ReadonlyArray<A>, pick: (a: A) => number) => of.reduce((total, a) => total + pick(a), 0)
  return `ledger audit of the ${reports.length} databases the tests left: ${sum(reports, (r) => r.checked.transactions)} ledger transactions, ` +
    `${sum(reports, (r) => r.checked.receipts)} receipts, ${sum(reports, (r) => r.checked.payouts)} payouts and ` +
    `${sum(reports, (r) => r.checked.receiptRefunds)} receipt refunds checked, ${sum(reports, (r) => r.findings.length)} findings; ` +
    `ledger = chain as the last server on a local chain closed (${windows.length} times): ${sum(windows, (w) => w.lines)} ` +
    `address and token lines compared, ${sum(windows, (w) => w.findings)} differences`
}

export default async function setup(): Promise<() => Promise<void>> {
  // Services the suites start side by side each get a local chain on a port of their own (npm start's
  // default is the fixed 8545, which only one of them could have).
  process.env.LOCAL_CHAIN_PORT ??= "0"
  // The processes the suites start (hundreds: CLIs, services, workers) inherit it and reuse Node's
  // compiled code instead of compiling the same modules each time (about 0.5 s of CPU per start).
  process.env.NODE_COMPILE_CACHE ??= join(process.cwd(), "node_modules", ".cache", "node")
  // The service as the suites' processes run it (`npm start`, `npm run worker`): built once here, so
  // that the files starting it side by side find it current.
  await ensureBuilt(say)
  await ensureChromium()
  const stopPostgres = process.env.TEST_DATABASE_URL ? undefined : await startPostgres()
  const audits = join(tmpdir(), `paygate-ledger-audits-${process.pid}.jsonl`)
  process.env[auditTallyVariable] = audits
  const snapshot = join(tmpdir(), `paygate-migrated-pglite-${process.pid}.tar`)
  const dataDir = join(tmpdir(), `paygate-migrated-pglite-${process.pid}`)
  const dropTemplate = await prepareMigratedTemplates({ snapshot, dataDir }, process.env.TEST_DATABASE_URL)
  return async () => {
    say(auditTotal(audits))
    rmSync(audits, { force: true })
    rmSync(snapshot, { force: true })
    rmSync(dataDir, { recursive: true, force: true })
    await dropTemplate()
    await stopPostgres?.()
  }
}
