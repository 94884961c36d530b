import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import postgres from "postgres"
import { startCommand } from "../scripts/StartCommand.ts"
import { eventually } from "./support/Eventually.ts"
import { freePort } from "./support/FreePort.ts"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { afterAll, describe, expect, it } from "vitest"

// Graceful shutdown of the service as deployed (`npm start`'s `node dist/main.mjs`): on SIGTERM it
// stops accepting connections at once, finishes the requests in flight (their responses close their
// connections), closes the database pool and exits by itself. Runs on the embedded database, and
// on PostgreSQL too when TEST_DATABASE_URL is set (there the pool's connections are watched).

const root = new URL("..", import.meta.url).pathname
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))


const tryConnect = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.on("connect", () => {
      socket.destroy()
      resolve("connected")
    })
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
  })

interface Target {
  readonly name: string
  readonly env: () => Promise<Record<string, string>>
  /** Backends connected to the service's database, when it can be observed. */
  readonly connections?: () => Promise<number>
  readonly cleanup: () => Promise<void>
}

const embedded = (): Target => {
  let dir: string | undefined
  return {
    name: "embedded PGlite",
    env: async () => {
      dir = await mkdtemp(join(tmpdir(), "paygate-shutdown-"))
      await copyMigratedDatabase(join(dir, "pglite"))
      return { PAYGATE_DATA_DIR: join(dir, "pglite") }
    },
    cleanup: async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true })
    }
  }
}

const onPostgres = (url: string): Target => {
  const name = `paygate_shutdown_${randomBytes(5).toString("hex")}`
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  return {
    name: "PostgreSQL",
    env: async () => {
      await admin.unsafe(`CREATE DATABASE ${name}`)
      const target = new URL(url)
      target.pathname = `/${name}`
      return { DATABASE_URL: target.toString() }
    },
    connections: async () => {
      const [row] = await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name}`
      return row!.n as number
    },
    cleanup: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
}

const targets: ReadonlyArray<() => Target> = [
  embedded,
  ...(process.env.TEST_DATABASE_URL ? [() => onPostgres(process.env.TEST_DATABASE_URL!)] : [])
]

for (const makeTarget of targets) {
  const target = makeTarget()
  describe(`graceful shutdown on SIGTERM (${target.name})`, () => {
    let service: ChildProcess | undefined
    afterAll(async () => {
      if (service !== undefined && service.exitCode === null && service.signalCode === null) service.kill("SIGKILL")
      await target.cleanup()
    })

    it("refuses new connections, finishes the request in flight, closes the pool and exits", async () => {
      const port = await freePort()
      const start = startCommand(root)
      service = spawn(process.execPath, [...start.flags, start.entry], {
        cwd: root,
        env: { ...process.env, ...start.env, ...(await target.env()), PORT: String(port) }
      })
      let output = ""
      service.stdout?.on("data", (chunk) => (output += chunk))
      service.stderr?.on("data", (chunk) => (output += chunk))
      const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
        service!.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
      )
      for (let i = 0; i < 240 && !output.includes("paygate is listening"); i++) await sleep(250)
      expect(output).toContain("paygate is listening")
      const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)?.[1]
      const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(output)?.[1]
      expect(apiKey).toBeDefined()
      expect(merchantId).toBeDefined()

      // A create whose body is still arriving when SIGTERM comes: in flight for as long as we like.
      const body = JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "during-shutdown" })
      const socket: Socket = connect(port, "127.0.0.1")
      let answer = ""
      let socketClosed = false
      let answeredAt: number | undefined
      socket.on("data", (chunk) => {
        answeredAt ??= Date.now()
        answer += chunk
      })
      socket.on("close", () => (socketClosed = true))
      await new Promise((resolve) => socket.once("connect", resolve))
      socket.write(
        `POST /v1/merchant/payment HTTP/1.1\r\nHost: 127.0.0.1\r\nApi-Key: ${apiKey}\r\nMerchant-Id: ${merchantId}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 12)}`
      )
      await sleep(300)

      service.kill("SIGTERM")
      // The listener closes as soon as the signal is handled: within moments, later on a loaded machine.
      let refused = await tryConnect(port)
      for (let i = 0; i < 100 && refused !== "ECONNREFUSED"; i++) {
        await sleep(100)
        refused = await tryConnect(port)
      }
      expect(refused).toBe("ECONNREFUSED")
      expect(service.exitCode).toBe(null)
      if (target.connections !== undefined) expect(await target.connections()).toBeGreaterThan(0)

      socket.write(body.slice(12))
      const { at, code, signal } = await exited
      for (let i = 0; i < 20 && !socketClosed; i++) await sleep(50)

      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 200 OK")
      expect(answer.toLowerCase()).toContain("connection: close")
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).status).toBe("pending")
      expect(socketClosed).toBe(true)
      // It exits by itself, right after the last response (not after the 5 s keep-alive timeout). Timed
      // from the response, not the request: on a loaded machine the create itself may take seconds.
      expect(signal).toBe(null)
      expect(code).not.toBe(null)
      expect(at - answeredAt!).toBeLessThan(3000)
      expect(output).toContain("shutting down")
      expect(output.split("\n").filter((line) => /"level":"(ERROR|FATAL)"/.test(line))).toEqual([])
      // A backend leaves pg_stat_activity a moment after its client closed: on a loaded machine, not at once.
      if (target.connections !== undefined) expect(await eventually(target.connections, (n) => n === 0, 10_000)).toBe(0)
    }, 90_000)
  })
}
