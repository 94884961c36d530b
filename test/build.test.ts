import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { ensureBuilt, inputsKey } from "../scripts/build.ts"
import { startCommand } from "../scripts/StartCommand.ts"

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
  write("packages/domain/src/Payment.ts", "export const a = 1\n")
  write("packages/domain/src/Payment.test.ts", "test\n")
  write("packages/domain/test/Other.test.ts", "test\n")
  write("packages/http/src/assets/page.js", "page\n")
  write("node_modules/.package-lock.json", "{}\n")

  it("changes with a source file's contents or time, or with the installed dependencies", () => {
    const first = inputsKey(tree)
    expect(inputsKey(tree)).toBe(first)
    write("packages/domain/src/Payment.ts", "export const a = 2\n")
    const edited = inputsKey(tree)
    expect(edited).not.toBe(first)
    utimesSync(join(tree, "app/main.ts"), new Date(), new Date(Date.now() + 5_000))
    const touched = inputsKey(tree)
    expect(touched).not.toBe(edited)
    write("node_modules/.package-lock.json", '{"packages":{}}\n')
    expect(inputsKey(tree)).not.toBe(touched)
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
    for (const entry of ["main", "api", "worker"]) expect(readlinkSync(join(root, "dist", `${entry}.mjs`))).toBe(join(key, `${entry}.mjs`))
    expect(realpathSync(join(root, startCommand(root).entry))).toBe(join(root, "dist", key, "main.mjs"))
    expect(startCommand(root, "worker").entry).toBe("dist/worker.mjs")
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
