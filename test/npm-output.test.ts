import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

// What npm itself prints in this repository (issue 15, item 12): `.npmrc` once set
// `loglevel=silent`, so `npm install` printed nothing, not even its warnings and errors. npm's own
// output must reach the developer, while `npm run admin` keeps stdout for its JSON alone.

const root = new URL("..", import.meta.url).pathname

const npm = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  promisify(execFile)("npm", [...args], { cwd: root, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr })
  )

describe("npm's own output", () => {
  it("npm install shows npm's warnings and its summary", async () => {
    const installed = await npm(["install", "--offline", "--dry-run", "--no-audit", "--no-fund", "--paygate-probe=1"])
    expect(installed.code).toBe(0)
    expect(installed.stderr).toContain('npm warn Unknown cli config "--paygate-probe"')
    expect(JSON.parse(installed.stdout.slice(installed.stdout.indexOf("{")))).toHaveProperty("added")
  })

  it("npm shows its errors", async () => {
    const missing = await npm(["run", "paygate-no-such-script"])
    expect(missing.code).not.toBe(0)
    expect(JSON.parse(missing.stdout).error.summary).toContain('Missing script: "paygate-no-such-script"')
  })

  it("npm run admin prints only the CLI's JSON on stdout; the script banner goes to stderr", async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), "paygate-npm-")), "pglite")
    try {
      const created = await npm(["run", "admin", "--", "partner", "create", "--name", "Banner", "--sandbox"], { PAYGATE_DATA_DIR: dataDir })
      expect(created.code).toBe(0)
      expect(created.stdout.trim().split("\n")).toHaveLength(1)
      expect(Object.keys(JSON.parse(created.stdout))).toEqual(["partnerId", "apiKey"])
      expect(created.stderr).toContain("> node packages/http/src/cli/admin.ts partner create")
      const help = await npm(["run", "admin", "--", "--help"])
      expect(help).toMatchObject({ code: 0, stdout: "" })
      expect(help.stderr).toContain("Usage: npm run admin")
    } finally {
      await rm(join(dataDir, ".."), { recursive: true, force: true })
    }
  }, 60_000)
})
