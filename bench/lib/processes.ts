/**
 * The processes a bench run starts: a throwaway PostgreSQL (the CI script), the service as it is
 * deployed (`node dist/main.mjs` with `DATABASE_URL`), the framework floor
 * (`floor.ts`) and the raw baseline (`baseline.ts`); and the databases they run on.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { startCommand } from "../../scripts/StartCommand.ts"

const run = promisify(execFile)
export const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "")
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const began = Date.now()

/** Writes a progress line to stderr (stdout carries the summary), with the seconds since the bench started. */
export const log = (message: string) => process.stderr.write(`bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s: ${message}\n`)

/** A running PostgreSQL and how to stop it. */
export interface Postgres {
  readonly url: string
  readonly version: string
  /** The postmaster's pid when this run started the server (its backends are its children). */
  readonly postmasterPid: number | undefined
  readonly stop: () => Promise<void>
}

/**
 * Starts a throwaway PostgreSQL 15 with `scripts/ci-postgres.sh` (the CI set-up: installs
 * `postgresql-15` when missing, `initdb` in a temporary directory, `fsync`, `synchronous_commit`
 * and `full_page_writes` off), or uses `BENCH_DATABASE_URL` when set (then nothing is stopped).
 */
export const startPostgres = async (): Promise<Postgres> => {
  const version = async (url: string) => {
    const { rows: [row] } = await adminQuery(url, "SELECT current_setting('server_version') AS version")
    return String(row?.version ?? "?")
  }
  const given = process.env.BENCH_DATABASE_URL
  if (given !== undefined && given !== "") {
    return { url: given, version: await version(given), postmasterPid: undefined, stop: async () => {} }
  }
  const { stdout, stderr } = await run("bash", [join(root, "scripts/ci-postgres.sh")], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
  const url = /TEST_DATABASE_URL=(\S+)/.exec(stdout)?.[1]
  const dataDir = /--pgdata=(\S+) stop/.exec(stderr)?.[1]
  if (url === undefined || dataDir === undefined) throw new Error(`scripts/ci-postgres.sh printed no URL:\n${stdout}\n${stderr}`)
  const asRoot = process.getuid?.() === 0
  const pgCtl = "/usr/lib/postgresql/15/bin/pg_ctl"
  const postmasterPid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  return {
    url,
    version: await version(url),
    postmasterPid: Number.isInteger(postmasterPid) && postmasterPid > 0 ? postmasterPid : undefined,
    stop: async () => {
      const args = ["--pgdata", dataDir, "--mode=fast", "stop"]
      await (asRoot ? run("runuser", ["-u", "postgres", "--", pgCtl, ...args]) : run(pgCtl, args)).catch(() => undefined)
      await rm(dirname(dataDir), { recursive: true, force: true }).catch(() => undefined)
    }
  }
}

/** Runs one statement on its own connection to `url` (no pool: nothing stays connected). */
export const adminQuery = async (url: string, text: string, values: ReadonlyArray<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text, [...values])
  } finally {
    await client.end()
  }
}

/** `url` with its database replaced by `name`. */
export const withDatabase = (url: string, name: string) => {
  const next = new URL(url)
  next.pathname = `/${name}`
  return next.toString()
}

/**
 * A new database `name` copied from the database of `templateUrl` (`CREATE DATABASE … TEMPLATE`: a
 * file copy, a second or so), replacing an earlier one of that name; answers its URL. Nothing may
 * be connected to the template meanwhile.
 */
export const copyDatabase = async (templateUrl: string, name: string) => {
  const template = new URL(templateUrl).pathname.slice(1)
  const maintenance = withDatabase(templateUrl, "postgres")
  await adminQuery(maintenance, `DROP DATABASE IF EXISTS "${name}"`)
  await adminQuery(maintenance, `CREATE DATABASE "${name}" TEMPLATE "${template}"`)
  return withDatabase(templateUrl, name)
}

/** Drops the database of `url` (after its clients are gone). */
export const dropDatabase = (url: string) =>
  adminQuery(withDatabase(url, "postgres"), `DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}"`).then(() => undefined)

/** A child process serving HTTP on `port`. */
export interface Server {
  readonly child: ChildProcess
  readonly port: number
  readonly url: string
  /** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
  readonly stop: (graceMs?: number) => Promise<{ code: number | null; signal: string | null }>
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode })
    child.once("exit", (code, signal) => resolve({ code, signal }))
  })

const stopper = (child: ChildProcess) => async (graceMs = 30_000) => {
  const exited = exitOf(child)
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
  const result = await exited
  clearTimeout(timer)
  return result
}

/** A port nothing listens on (free when asked). */
export const freePort = async () => {
  const { createServer } = await import("node:net")
  return new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Options of {@link startService}. */
export interface ServiceOptions {
  readonly databaseUrl: string
  /** Where stdout and stderr go (the service logs one JSON line per request, as in production). */
  readonly logFile: string
  /** Directory for a V8 CPU profile (`--cpu-prof`), written when the service exits. */
  readonly cpuProfileDir?: string | undefined
  /** File for an allocation profile (`AllocationSampling.ts`), written when the process exits. */
  readonly allocationProfile?: string | undefined
  /** More environment (a scenario's settings, `WORKER_IN_PROCESS=false` for an API process alone). */
  readonly env?: Record<string, string> | undefined
}

const profileFlags = (dir: string | undefined) => (dir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${dir}`])
// With an allocation profile to write: the sampling module (`AllocationSampling.ts`) and where it writes.
const allocationFlags = (file: string | undefined) => (file === undefined ? [] : ["--import", join(root, "bench/lib/AllocationSampling.ts")])
const allocationEnv = (file: string | undefined) => (file === undefined ? {} : { ALLOCATION_PROFILE: file })

/**
 * Starts the service the production way, `node dist/main.mjs` with `DATABASE_URL` and
 * the environment and Node flags of `npm start`, and waits for `/readyz`. The per-credential rate limit is raised
 * (the bench drives one credential far past the contract's 50 requests per second); the limiter
 * still runs on every request.
 */
export const startService = async (options: ServiceOptions): Promise<Server> => {
  const port = await freePort()
  const out = openSync(options.logFile, "w")
  const start = startCommand(root)
  const flags = [...start.flags, ...profileFlags(options.cpuProfileDir), ...allocationFlags(options.allocationProfile)]
  // Profiles name functions and modules as written: a profiled service runs from its sources.
  const entry = options.cpuProfileDir === undefined && options.allocationProfile === undefined ? start.entry : "app/main.ts"
  const child = spawn(process.execPath, [...flags, entry], {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      RATE_LIMIT_PER_SECOND: "1000000000",
      RATE_LIMIT_BURST: "1000000000",
      ...allocationEnv(options.allocationProfile),
      ...options.env
    },
    stdio: ["ignore", out, out]
  })
  closeSync(out)
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}; see ${options.logFile}`)
    // A request accepted while the service is still starting may never be answered: give up on it and ask again.
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200, () => false)
    if (ready) break
    if (i > 240) throw new Error(`the service did not become ready; see ${options.logFile}`)
    await sleep(250)
  }
  return { child, port, url, stop: stopper(child) }
}

/** Options of {@link startApp}. */
export interface AppOptions {
  readonly databaseUrl: string
  /** The partner and the merchant whose payments the app writes. */
  readonly partnerId: string
  readonly merchantId: string
  readonly logFile: string
  /** Directory for a V8 CPU profile (`--cpu-prof`), written when the app exits. */
  readonly cpuProfileDir?: string | undefined
  /** File for an allocation profile (`AllocationSampling.ts`), written when the process exits. */
  readonly allocationProfile?: string | undefined
  /** More environment (a scenario's settings). */
  readonly env?: Record<string, string> | undefined
}

/**
 * Starts a bench app, the raw baseline (`bench/baseline.ts`) or the framework floor
 * (`bench/floor.ts`), with the environment and Node flags of `npm start` like the service, and waits for its
 * `listening <port>` line.
 */
export const startApp = async (script: "bench/baseline.ts" | "bench/floor.ts", options: AppOptions): Promise<Server> => {
  const out = openSync(options.logFile, "w")
  const start = startCommand(root)
  const flags = [...start.flags, ...profileFlags(options.cpuProfileDir), ...allocationFlags(options.allocationProfile)]
  const child = spawn(process.execPath, [...flags, script], {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      DATABASE_URL: options.databaseUrl,
      PORT: "0",
      PARTNER_ID: options.partnerId,
      MERCHANT_ID: options.merchantId,
      ...allocationEnv(options.allocationProfile),
      ...options.env
    },
    stdio: ["ignore", "pipe", out]
  })
  closeSync(out)
  const port = await new Promise<number>((resolve, reject) => {
    let text = ""
    child.stdout?.on("data", (chunk) => {
      text += chunk
      const match = /listening (\d+)/.exec(text)
      if (match !== null) resolve(Number(match[1]))
    })
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}; see ${options.logFile}`)))
  })
  return { child, port, url: `http://127.0.0.1:${port}`, stop: stopper(child) } satisfies Server
}

/** Runs the operator CLI (`npm run admin -- …`) against `databaseUrl`; answers its JSON. */
export const admin = async (databaseUrl: string, ...args: Array<string>) => {
  const { stdout } = await run("npm", ["run", "-s", "admin", "--", ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl }
  })
  return JSON.parse(stdout) as Record<string, string>
}

/** Resident set size of a process, now and at its peak (`VmRSS`, `VmHWM`), in bytes. */
export const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024
  return { rss: kb("VmRSS"), peak: kb("VmHWM") }
}

const clockTicks = 100 // USER_HZ: the unit of utime/stime in /proc/<pid>/stat on Linux

// Fields after the command (which may contain spaces) start at ") ": state is field 3.
const statFields = (stat: string) => stat.slice(stat.lastIndexOf(")") + 2).split(" ")

// utime and stime (fields 14 and 15).
const cpuOfStat = (stat: string) => {
  const fields = statFields(stat)
  return (Number(fields[11]) + Number(fields[12])) / clockTicks
}

// cutime and cstime (fields 16 and 17): the CPU of the process's children it has waited for.
const reapedCpuOfStat = (stat: string) => {
  const fields = statFields(stat)
  return (Number(fields[13]) + Number(fields[14])) / clockTicks
}

// CPU seconds of a `stat` file; NaN once its process is gone.
const cpuOfStatFile = (path: string) => {
  try {
    return cpuOfStat(readFileSync(path, "utf8"))
  } catch {
    return Number.NaN
  }
}

/** `pid` and every process below it (a PostgreSQL server's backends, a service's local chain). */
export const processTree = (pid: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      parents.set(Number(entry), Number(statFields(readFileSync(`/proc/${entry}/stat`, "utf8"))[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child)
  return tree
}

/** CPU seconds (user + system) a process has used so far. */
export const cpuSecondsOf = (pid: number) => cpuOfStatFile(`/proc/${pid}/stat`)

/** CPU seconds (user + system) a process's main thread (the event loop of a Node process) has used so far. */
export const mainThreadCpuSecondsOf = (pid: number) => cpuOfStatFile(`/proc/${pid}/task/${pid}/stat`)

/** The machine's CPU time so far (`/proc/stat`, all cores), busy and in all, in seconds. */
export const machineCpuSeconds = () => {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const total = fields.reduce((sum, value) => sum + value, 0)
  return { busy: (total - fields[3]! - fields[4]!) / clockTicks, total: total / clockTicks }
}

/**
 * CPU seconds used so far by one PostgreSQL server: its postmaster, every live child (backends,
 * background workers) and the children that have exited. Other servers on the machine are not counted.
 */
export const postgresCpuSeconds = (postmasterPid: number) => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(statFields(stat)[1])
      if (parent === postmasterPid) total += cpuOfStat(stat)
      // The postmaster's own CPU and that of the backends it has reaped (cutime, cstime): a backend
      // whose connection closed during a load would otherwise take its CPU out of the sum.
      if (Number(entry) === postmasterPid) total += cpuOfStat(stat) + reapedCpuOfStat(stat)
    } catch {
      // Gone meanwhile.
    }
  }
  return total
}
