import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { ensureBuilt, inputsKey, prune } from "../scripts/build.ts"
import { startCommand } from "../scripts/StartCommand.ts"
import { freePort } from "./support/FreePort.ts"
import { spawnNode, waitForLine } from "./support/ServiceProcess.ts"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"

// `npm start`, `npm run worker` and the bench run the service from `dist/` (`scripts/build.ts`): a build
// that missed a changed source would run old code, one that rebuilt on every start would cost seconds.

const root = fileURLToPath(new URL("..", import.meta.url))

describe("the build's key", () => {
  const tree = mkdtempSync(join(tmpdir(), "paygate-build-key-"))
  afterAll(() => rmSync(tree, { recursive: true, force: true }))
  const write = (path: string, text: string) => {
    mkdirSync(join(tree, path, ".."), { recursive: true })
    writeFileSync(join(tree, path), text)
  }
  write("app/main.ts", "export {}\n")
  write("scripts/pay.ts", "export {}\n")
  write("packages/domain/src/Payment.ts", "export const a = 1\n")
  write("packages/domain/src/Payment.test.ts", "test\n")
  write("packages/domain/test/Other.test.ts", "test\n")
  write("packages/http/src/assets/page.js", "page\n")
  write("node_modules/.package-lock.json", "{}\n")

  it("changes with a source file's contents or time (a CLI's script's too), or with the installed dependencies", () => {
    const first = inputsKey(tree)
    expect(inputsKey(tree)).toBe(first)
    write("packages/domain/src/Payment.ts", "export const a = 2\n")
    const edited = inputsKey(tree)
    expect(edited).not.toBe(first)
    utimesSync(join(tree, "app/main.ts"), new Date(), new Date(Date.now() + 5_000))
    const touched = inputsKey(tree)
    expect(touched).not.toBe(edited)
    write("scripts/pay.ts", "export const pay = 1\n")
    const scripted = inputsKey(tree)
    expect(scripted).not.toBe(touched)
    write("node_modules/.package-lock.json", '{"packages":{}}\n')
    expect(inputsKey(tree)).not.toBe(scripted)
  })

  it("leaves out what the bundle does not hold: tests and the pages' own scripts", () => {
    const before = inputsKey(tree)
    write("packages/domain/src/Payment.test.ts", "changed test\n")
    write("packages/domain/test/Other.test.ts", "changed test\n")
    write("packages/http/src/assets/page.js", "changed page\n")
    expect(inputsKey(tree)).toBe(before)
  })
})

describe("the checkout's build", () => {
  it("is current after the test run's set-up: a start only checks, and the links name the build of these sources", async () => {
    const said: Array<string> = []
    expect(await ensureBuilt((line) => said.push(line))).toBe(false)
    expect(said).toEqual([])
    const key = inputsKey(root)
    for (const entry of ["main", "api", "worker", "admin", "pay", "subscribe", "webhooks"]) {
      expect(readlinkSync(join(root, "dist", `${entry}.mjs`))).toBe(join(key, `${entry}.mjs`))
    }
    expect(realpathSync(join(root, startCommand(root).entry))).toBe(join(root, "dist", key, "main.mjs"))
    expect(startCommand(root, "worker").entry).toBe("dist/worker.mjs")
    expect(startCommand(root, "admin").entry).toBe("dist/admin.mjs")
  })

  it("npm run build says nothing and succeeds when the build is current", async () => {
    const child = spawn("npm", ["run", "-s", "build"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    expect({ code, output }).toEqual({ code: 0, output: "" })
  })
})

describe("pruning old builds", () => {
  it("keeps the current build and the two newest others, and another start's build in progress; drops one abandoned for over an hour", () => {
    const directory = mkdtempSync(join(tmpdir(), "paygate-build-prune-"))
    try {
      const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
      const make = (name: string, age: number) => {
        mkdirSync(join(directory, name))
        utimesSync(join(directory, name), hoursAgo(age), hoursAgo(age))
      }
      make("current", 5)
      make("newer", 1)
      make("older", 2)
      make("oldest", 3)
      make(".building.123", 0.5)
      make(".killed.456", 2)
      prune(directory, "current")
      expect(readdirSync(directory).sort()).toEqual([".building.123", "current", "newer", "older"])
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })
})

describe("dist/api.mjs, the API alone (what the going-live guide's systemd unit runs)", () => {
  it("starts on the embedded database, answers /readyz and the API, and exits on SIGTERM", async () => {
    const directory = await mkdtemp(join(tmpdir(), "paygate-api-alone-"))
    await copyMigratedDatabase(join(directory, "pglite"))
    const port = await freePort()
    const start = startCommand(root)
    const api = spawnNode([...start.flags, "dist/api.mjs"], { ...start.env, PAYGATE_DATA_DIR: join(directory, "pglite"), PORT: String(port) })
    try {
      await waitForLine(api, "paygate is listening", 120_000, "dist/api.mjs")
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200)
      const unauthenticated = await fetch(`http://127.0.0.1:${port}/v1/merchants`)
      expect(unauthenticated.status).toBe(401)
      expect(await unauthenticated.json()).toMatchObject({ code: "missing_api_key" })
      expect(api.output()).not.toContain("worker started")
    } finally {
      api.child.kill("SIGTERM")
      expect(await api.exited).toBe(130)
      await rm(directory, { recursive: true, force: true })
    }
  }, 180_000)
})
