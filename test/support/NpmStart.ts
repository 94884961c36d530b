/**
 * `npm start` as a developer runs it, for the tests of the developer tools (`npm run pay`,
 * `npm run webhooks`, the Promise client): its own process group on a free port and a fresh
 * embedded database (this run's migrated one, see {@link copyMigratedDatabase}), with sandbox
 * credentials of the test's own made with the operator CLI and the partner API (so the tests do
 * not depend on the wording of the start-up banner).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { copyMigratedDatabase } from "./MigratedDataDir.ts"
import { freePort, repoRoot } from "./ServiceProcess.ts"

const run = promisify(execFile)

/** What a command printed and how it ended. */
export interface CommandResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `npm <args>` in the repository, answering its output and exit code whatever they are. */
export const npm = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<CommandResult> =>
  run("npm", [...args], { cwd: repoRoot, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr })
  )

/** An `npm start` process: what it printed so far, and how to stop it. */
export interface NpmStartProcess {
  readonly child: ChildProcess
  /** stdout and stderr, as they came. */
  readonly output: () => string
  /** The exit code once it ended. */
  readonly exited: Promise<number | null>
  /** SIGTERM to its process group (npm, the service, its anvil), SIGKILL after 15 s; resolves once every process of it ended. */
  readonly stop: () => Promise<void>
}

// Resolves once process group `pgid` has no process left (signal 0 only checks).
const groupEnded = async (pgid: number) => {
  for (;;) {
    try {
      process.kill(-pgid, 0)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Runs `npm start` in `cwd` (the repository by default) with `env` added, in its own process group.
 * With `terminal`, under a pseudo-terminal (util-linux `script`), as a person runs it: its output
 * is then what the terminal showed (`\r\n` line ends).
 */
export const spawnNpmStart = (env: Record<string, string>, cwd: string = repoRoot, terminal = false): NpmStartProcess => {
  const [command, args] = terminal ? ["script", ["-qfec", "npm start", "/dev/null"]] as const : ["npm", ["start"]] as const
  const child: ChildProcess = spawn(command, [...args], { cwd, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const stop = async () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
    process.kill(-child.pid, "SIGTERM")
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // already gone
      }
    }, 15_000)
    await exited
    // npm exits when its script's shell does, which may be before the service has closed its
    // embedded database: wait until no process of the group is left.
    await groupEnded(child.pid)
    clearTimeout(timer)
  }
  return { child, output: () => output, exited, stop }
}

/** Waits until `started` printed `line`; fails with its output when it ends first or after `timeoutMs`. */
export const waitForOutput = async (started: NpmStartProcess, line: string, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (!started.output().includes(line)) {
    if (started.child.exitCode !== null || started.child.signalCode !== null) throw new Error(`npm start exited:\n${started.output().slice(-4_000)}`)
    if (Date.now() > deadline) throw new Error(`npm start did not print "${line}" within ${timeoutMs / 1000} s:\n${started.output().slice(-4_000)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

// The last line of the start's banner (app/Welcome.ts): with sandbox credentials, or on an existing database without.
const bannerEnd = /npm run pay -- <paymentId> --app-id|Using the existing database\. List partners/

/**
 * Waits until `npm start` has printed its whole banner. It is one write, but a terminal or a pipe
 * can hand it over in pieces: a test that read it at "paygate is listening" could miss its end.
 */
export const waitForBanner = async (started: NpmStartProcess, timeoutMs = 90_000) => {
  await waitForOutput(started, "paygate is listening", timeoutMs)
  const deadline = Date.now() + 10_000
  while (!bannerEnd.test(started.output())) {
    if (Date.now() > deadline) throw new Error(`npm start printed no whole banner:\n${started.output().slice(-4_000)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A running `npm start` with a sandbox partner, merchant and wallet app of the test's own. */
export interface StartedService {
  readonly url: string
  readonly output: () => string
  readonly env: Record<string, string>
  readonly partnerId: string
  readonly apiKey: string
  readonly merchantId: string
  readonly appId: string
  /** A JSON request with the partner's key. */
  readonly partner: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; json: any }>
  readonly stop: () => Promise<void>
}

/** Starts `npm start` (extra environment in `env`) and makes sandbox credentials on it. */
export const startService = async (env: Record<string, string> = {}): Promise<StartedService> => {
  const dataDir = join(await mkdtemp(join(tmpdir(), "paygate-dev-")), "pglite")
  const port = await freePort()
  const serviceEnv = { PAYGATE_DATA_DIR: dataDir, ...env }
  await copyMigratedDatabase(dataDir)
  const started = spawnNpmStart({ ...serviceEnv, PORT: String(port) })
  const stop = async () => {
    await started.stop()
    await rm(join(dataDir, ".."), { recursive: true, force: true })
  }
  try {
    // A loaded machine (a whole suite, other work) can take minutes to start the embedded database.
    await waitForBanner(started, 240_000)
    const admin = async (...args: Array<string>) => {
      const result = await npm(["run", "-s", "admin", "--", ...args], serviceEnv)
      if (result.code !== 0) throw new Error(`npm run admin ${args.join(" ")}: ${result.stderr}`)
      return JSON.parse(result.stdout)
    }
    const { partnerId, apiKey } = await admin("partner", "create", "--name", `dev-tools-${port}`, "--sandbox")
    const { appId } = await admin("app", "create", "--name", `dev-tools-${port}`, "--sandbox")
    const url = `http://127.0.0.1:${port}`
    const partner = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { "api-key": apiKey, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      return { status: response.status, json: text === "" ? undefined : JSON.parse(text) }
    }
    const merchant = await partner("POST", "/v1/merchants", { merchantName: "Dev tools shop" }, { "idempotency-key": `m-${port}` })
    if (merchant.status !== 201 && merchant.status !== 200) throw new Error(`merchant create: ${JSON.stringify(merchant.json)}`)
    return { url, output: started.output, env: serviceEnv, partnerId, apiKey, merchantId: merchant.json.merchantId ?? merchant.json.id, appId, partner, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Creates a sandbox payment of `value` minor units of USD; answers its id. */
export const createPayment = async (service: StartedService, value: string, referenceId: string): Promise<string> => {
  const created = await service.partner("POST", "/v1/payments", {
    merchantId: service.merchantId,
    amount: { unit: "iso4217/USD", value },
    referenceId
  })
  if (created.status !== 200 && created.status !== 201) throw new Error(`payment create: ${JSON.stringify(created.json)}`)
  return created.json.paymentId
}
