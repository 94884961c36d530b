import { mkdtemp, rm } from "node:fs/promises"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { npm } from "./support/NpmStart.ts"
import { repoRoot } from "./support/ServiceProcess.ts"

// What npm itself prints in this repository: `.npmrc` once set
// `loglevel=silent`, so `npm install` printed nothing, not even its warnings and errors. The project
// now sets no npm configuration: npm's warnings, errors and summaries are npm's usual lines, and
// the JSON of the operator CLI is had alone with npm's own `-s`.

describe("npm's own output", () => {
  it("the project sets no npm configuration that hides npm's output", () => {
    expect(existsSync(join(repoRoot, ".npmrc"))).toBe(false)
  })

  it("npm install shows npm's warnings and its summary, as lines a person reads", async () => {
    const installed = await npm(["install", "--offline", "--dry-run", "--no-audit", "--no-fund", "--paygate-probe=1"])
    expect(installed.code).toBe(0)
    expect(installed.stderr).toContain('npm warn Unknown cli config "--paygate-probe"')
    expect(installed.stdout).toMatch(/(up to date|added|removed|changed) .*in \d/)
    expect(installed.stdout.trimStart().startsWith("{")).toBe(false)
  })

  it("npm shows its errors as lines, not JSON", async () => {
    const missing = await npm(["run", "paygate-no-such-script"])
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain('npm error Missing script: "paygate-no-such-script"')
    expect(missing.stdout).not.toContain('"error"')
  })

  it("npm run -s admin prints only the CLI's JSON on stdout; without -s npm's banner comes first", async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), "paygate-npm-")), "pglite")
    await copyMigratedDatabase(dataDir)
    try {
      const created = await npm(["run", "-s", "admin", "--", "partner", "create", "--name", "Banner", "--sandbox"], { PAYGATE_DATA_DIR: dataDir })
      expect(created.code).toBe(0)
      expect(created.stdout.trim().split("\n")).toHaveLength(1)
      expect(Object.keys(JSON.parse(created.stdout))).toEqual(["partnerId", "apiKey"])
      const listed = await npm(["run", "admin", "--", "partner", "list"], { PAYGATE_DATA_DIR: dataDir })
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain("> node scripts/build.ts && node dist/admin.mjs partner list")
      expect(JSON.parse(listed.stdout.slice(listed.stdout.indexOf("[")))).toHaveLength(1)
      const help = await npm(["run", "-s", "admin", "--", "--help"])
      expect(help).toMatchObject({ code: 0, stdout: "" })
      expect(help.stderr).toContain("Usage: npm run admin")
    } finally {
      await rm(join(dataDir, ".."), { recursive: true, force: true })
    }
  }, 60_000)
})
