/**
 * `npm start` as a person runs it again and again, with real processes on a data directory of the
 * test's own:
 * - not on a terminal: JSON log lines, no per-request line at the default level, the sandbox's
 *   credentials in `sandbox.env` (0600) to `source`, and the start says so;
 * - a second start while it runs: one line with the running one's address, nothing else;
 * - after a kill -9 the leftover local chain is stopped before the ports are chosen, so the chain
 *   keeps the default 8545; that restart runs on a pseudo-terminal and prints no JSON line.
 *
 * The kill -9 scenario is about the default chain port, so this suite uses 8545 (and waits for it
 * to be free); the API and everything else are on ports and directories of its own.
 */
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { type NpmStartProcess, spawnNpmStart, waitForBanner } from "./support/NpmStart.ts"
import { freePort } from "./support/ServiceProcess.ts"

const run = promisify(execFile)
const defaultChainPort = 8545

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)))
  })

const waitUntil = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// What the service printed, without npm's own "> start" header (npm's, not ours) and blank lines.
const ownLines = (output: string) =>
  output.split(/\r?\n/).filter((line) => line.trim() !== "" && !line.startsWith("> "))

describe("npm start: the terminal, a second start, a restart after kill -9", () => {
  let dir: string
  let dataDir: string
  let env: Record<string, string>
  const started: Array<NpmStartProcess> = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "paygate-restarts-"))
    dataDir = join(dir, "pglite")
    // Still a first start (no partner, keys or chain yet); creating the database is `npm-start.test.ts`'s.
    await copyMigratedDatabase(dataDir)
    // LOCAL_CHAIN_PORT unset: the default 8545, as a newcomer's start has it.
    env = { PAYGATE_DATA_DIR: dataDir, PORT: String(await freePort()), LOCAL_CHAIN_PORT: "", LOG_FORMAT: "", LOG_LEVEL: "" }
    await waitUntil(`port ${defaultChainPort} free (another suite's chain holds it)`, () => isFree(defaultChainPort), 120_000)
  }, 150_000)

  afterAll(async () => {
    for (const s of started) await s.stop()
    // The chain of a start killed by the test, should the restart not have stopped it.
    const pid = Number((await readFile(join(`${dataDir}.chain`, "state.json.pid"), "utf8").catch(() => "")).trim())
    if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL")
    await rm(dir, { recursive: true, force: true })
  }, 60_000)

  it("first start off a terminal, a second start, kill -9, a restart on a terminal", async () => {
    const url = `http://localhost:${env.PORT}`
    const first = spawnNpmStart(env)
    started.push(first)
    await waitForBanner(first, 180_000)

    // Off a terminal: JSON lines; the credentials kept in sandbox.env, and the start says so.
    const envFile = join(dir, "sandbox.env")
    expect(first.output()).toContain(`Also written to ${envFile} (owner-only): source ${envFile}`)
    expect(first.output()).toMatch(/^\{"message":"Database: embedded PGlite/m)
    expect((await stat(envFile)).mode & 0o777).toBe(0o600)
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(first.output())![1]!
    const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(first.output())![1]!
    const sourced = await run("bash", ["-c", `source ${envFile} && echo "$API_KEY $MERCHANT_ID $PAYGATE_URL"`])
    expect(sourced.stdout.trim()).toBe(`${apiKey} ${merchantId} ${url}`)
    const listed = await fetch(`http://127.0.0.1:${env.PORT}/v1/merchants`, { headers: { "api-key": apiKey } })
    expect(listed.status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 500)) // the log is written after the turn that answered
    expect(first.output()).not.toContain(`"request"`)
    expect(first.output()).toContain(`Local chain eip155:31337 at http://127.0.0.1:${defaultChainPort}:`)

    // A second start while it runs: one line, the running one's address.
    const nodePid = Number((await readFile(`${dataDir}.lock`, "utf8")).split("\n")[0])
    const second = spawnNpmStart({ ...env, PORT: String(await freePort()) })
    started.push(second)
    expect(await second.exited).toBe(0)
    expect(ownLines(second.output())).toEqual([`paygate is already running at http://localhost:${env.PORT} (process ${nodePid}).`])

    // kill -9: the service dies, its anvil is left running on 8545.
    const chainPid = Number((await readFile(join(`${dataDir}.chain`, "state.json.pid"), "utf8")).trim())
    process.kill(nodePid, "SIGKILL")
    await first.exited
    expect(alive(chainPid)).toBe(true)
    expect(await isFree(defaultChainPort)).toBe(false)

    // The restart, on a terminal: the leftover chain stopped, the chain back on 8545, no JSON line.
    const again = spawnNpmStart(env, undefined, true)
    started.push(again)
    await waitForBanner(again, 180_000)
    const output = again.output()
    expect(output).not.toContain("is in use")
    expect(output).toContain(`Local chain eip155:31337 at http://127.0.0.1:${defaultChainPort}:`)
    expect(alive(chainPid)).toBe(false)
    expect(output).toContain(`Its credentials: source ${envFile}`)
    expect(ownLines(output).filter((line) => line.trimStart().startsWith("{"))).toEqual([])
    expect(output).toMatch(/^\d\d:\d\d:\d\d Database: embedded PGlite/m)
    expect(output).toMatch(/^\d\d:\d\d:\d\d WARN  stopping the local chain \(pid \d+\) left running by an earlier start that was killed/m)

    // Stopped as Ctrl-C would: its chain goes with it.
    const restartedPid = Number((await readFile(`${dataDir}.lock`, "utf8")).split("\n")[0])
    process.kill(restartedPid, "SIGTERM")
    await again.exited
    await waitUntil("the restart's chain stopped", () => isFree(defaultChainPort), 30_000)
  }, 600_000)
})
