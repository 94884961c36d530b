/**
 * Service processes for the cross-package fault tests: API processes (what `npm start` runs: the
 * built `dist/main.mjs` with its environment and Node flags) on a port of their own, worker processes (any spawner, e.g.
 * `PostgresWorld.spawnWorker`), each restartable after a `kill -9` (an API on the same port), the
 * operator CLI (`app/admin.ts`), and free ports.
 *
 * `PAYGATE_SERVICE_ROOT` runs the service's code from another checkout (with its own
 * `node_modules` and `npm run build`), e.g. an older commit to show what a test catches there; default: this checkout.
 */
import { execFile, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { startCommand } from "../../scripts/StartCommand.ts"
import type { WorkerProcess } from "./PostgresWorld.ts"

const run = promisify(execFile)

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

/** Where the service's processes run from. */
export const serviceRoot = process.env.PAYGATE_SERVICE_ROOT !== undefined && process.env.PAYGATE_SERVICE_ROOT !== ""
  ? process.env.PAYGATE_SERVICE_ROOT
  : repoRoot

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A TCP port for a server of the test's own (see `FreePort.ts`). */
export { freePort } from "./FreePort.ts"

/** Spawns `node <args>` from the service root with extra environment; output kept (last 40,000 characters). */
export const spawnNode = (args: ReadonlyArray<string>, env: Record<string, string>): WorkerProcess => {
  const child = spawn(process.execPath, args, {
    cwd: serviceRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-40_000))
  child.stdout?.on("data", keep)
  child.stderr?.on("data", keep)
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)))
  return { child, output: () => output, exited }
}

/** An API process on `port` (the service as `npm start` runs it: its environment and Node flags). */
export const spawnApi = (port: number, env: Record<string, string>): WorkerProcess => {
  const start = startCommand(serviceRoot)
  return spawnNode([...start.flags, start.entry], { ...start.env, ...env, PORT: String(port) })
}

/** A worker process (what `npm run worker` runs: the built `dist/worker.mjs` with its environment). */
export const spawnWorker = (env: Record<string, string>): WorkerProcess => {
  const worker = startCommand(serviceRoot, "worker")
  return spawnNode([...worker.flags, worker.entry], { ...worker.env, ...env })
}

const apiReady = "paygate is listening"
const workerReady = "worker started: dispatcher"

const alive = (p: WorkerProcess) => p.child.exitCode === null && p.child.signalCode === null

/** Resolves once `line` is in the process's output; rejects if it exits first or after `timeoutMs`. */
export const waitForLine = async (p: WorkerProcess, line: string, timeoutMs = 60_000, name = "process") => {
  const deadline = Date.now() + timeoutMs
  while (!p.output().includes(line)) {
    if (!alive(p)) throw new Error(`${name} exited (${p.child.exitCode ?? p.child.signalCode}) before "${line}":\n${p.output().slice(-4_000)}`)
    if (Date.now() > deadline) throw new Error(`${name} did not print "${line}" within ${timeoutMs} ms:\n${p.output().slice(-4_000)}`)
    await sleep(25)
  }
}

/** A service process that can be killed and started again (a new instance each time). */
export interface Managed {
  readonly name: string
  /** The latest instance. */
  readonly current: () => WorkerProcess
  /** Every instance so far, in order. */
  readonly instances: ReadonlyArray<WorkerProcess>
  /** Starts a new instance (the previous one must be gone); resolves once it is ready. */
  readonly start: () => Promise<WorkerProcess>
  /** Spawns a new instance without waiting; `ready` resolves once it is ready. */
  readonly spawn: () => { readonly instance: WorkerProcess; readonly ready: Promise<void> }
  /** `kill -9` of the current instance; resolves once it is gone. */
  readonly kill9: () => Promise<void>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it exited. */
  readonly stop: (graceMs?: number) => Promise<number | string>
  /** The output of every instance (the tail of each), for failure messages. */
  readonly outputs: (chars?: number) => string
}

const managed = (name: string, make: () => WorkerProcess, readyLine: string): Managed => {
  const instances: Array<WorkerProcess> = []
  const spawnOne = () => {
    const previous = instances.at(-1)
    if (previous !== undefined && alive(previous)) throw new Error(`${name} is still running`)
    const instance = make()
    instances.push(instance)
    return { instance, ready: waitForLine(instance, readyLine, 90_000, name) }
  }
  const current = () => {
    const last = instances.at(-1)
    if (last === undefined) throw new Error(`${name} was never started`)
    return last
  }
  return {
    name,
    current,
    instances,
    spawn: spawnOne,
    start: async () => {
      const { instance, ready } = spawnOne()
      await ready
      return instance
    },
    kill9: async () => {
      const p = current()
      if (alive(p)) p.child.kill("SIGKILL")
      await p.exited
    },
    stop: async (graceMs = 10_000) => {
      const p = instances.at(-1)
      if (p === undefined) return -1
      if (alive(p)) {
        p.child.kill("SIGTERM")
        const timer = setTimeout(() => alive(p) && p.child.kill("SIGKILL"), graceMs)
        const code = await p.exited
        clearTimeout(timer)
        return code
      }
      return p.exited
    },
    outputs: (chars = 3_000) =>
      instances.map((p, i) => `--- ${name} #${i + 1} (${p.child.exitCode ?? p.child.signalCode ?? "running"}):\n${p.output().slice(-chars)}`).join(
        "\n"
      )
  }
}

/** An API process on `port`, restartable on the same port; ready once it prints that it listens. */
export const managedApi = (name: string, port: number, env: Record<string, string>): Managed & { readonly url: string; readonly port: number } => ({
  ...managed(name, () => spawnApi(port, env), apiReady),
  url: `http://127.0.0.1:${port}`,
  port
})

/** A worker process spawned by `make` (e.g. `() => world.spawnWorker(env)`); ready once its jobs started. */
export const managedWorker = (name: string, make: () => WorkerProcess): Managed => managed(name, make, workerReady)

/** Runs the operator CLI (`npm run admin -- …`) on `databaseUrl`; answers its JSON. */
export const admin = async (databaseUrl: string, ...args: Array<string>): Promise<any> => {
  const { stdout } = await run(process.execPath, [startCommand(serviceRoot, "admin").entry, ...args], {
    cwd: serviceRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl }
  })
  return JSON.parse(stdout)
}
