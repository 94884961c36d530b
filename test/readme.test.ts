/**
 * The repository's documentation stands alone and matches what the service does: every relative
 * link (and its heading anchor) resolves, every page is in the table of contents, the README stays
 * short, and every shell command a reader can paste names things that exist: npm scripts, the flags
 * and commands of the project's CLIs, routes of the API, files, and configuration variables. The
 * README's tour and the CLIs' `--help` are run for real by docs-commands.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { OpenApi } from "effect/http-api"
import { getContractAddress } from "viem"
import { describe, expect, it } from "vitest"
import { Chain, Configuration } from "@paygate/adapters"
import { PaygateApi } from "@paygate/http"
import {
  anchors,
  type DocCommand,
  documentationFiles,
  readDoc,
  relativeLinks,
  shellCommands,
  simpleCommands
} from "./support/DocCommands.ts"
import { repoRoot } from "./support/ServiceProcess.ts"

// Variables a reader sets for the commands (the tour's values, the CLIs' key), beside paygate's own.
const readerVariables = new Set(["PAYGATE_URL", "API_KEY", "MERCHANT_ID", "APP_ID", "PAYMENT_ID", "PLAN_ID", "PAYGATE_API_KEY"])
// Read by Node or glibc, not by paygate.
const processVariables = new Set(["NODE_OPTIONS", "MALLOC_ARENA_MAX", "NODE_COMPILE_CACHE"])
const knownVariable = (name: string) =>
  Configuration.variables.has(name) || readerVariables.has(name) || processVariables.has(name)

const scripts: Record<string, string> = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).scripts
// Where each CLI's usage text lives: a flag or command the docs show must appear in it.
const cliSources: Record<string, string> = {
  admin: "packages/cli/src/AdminCommand.ts",
  pay: "scripts/pay.ts",
  subscribe: "scripts/subscribe.ts",
  webhooks: "scripts/webhooks.ts",
  listen: "scripts/webhooks.ts"
}

const routes = Object.entries((OpenApi.fromApi(PaygateApi) as { paths: Record<string, Record<string, unknown>> }).paths)
  .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })))
const routeOf = (method: string, path: string) =>
  routes.find((route) => route.method === method && new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))

const isAssignment = (word: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)

// The operating system's own tools, which the going-live walk uses to set a machine up: not paygate's
// to check (sudo's command is checked as the command it runs).
const systemPrograms = new Set([
  "cd", "set", ".", "echo", "git", "openssl", "install", "useradd", "createuser", "createdb", "systemctl", "journalctl"
])

/** What is wrong with one simple command as the docs show it, or `undefined`. */
const problem = (command: DocCommand, all: ReadonlyArray<string>): string | undefined => {
  const argv = [...all]
  while (argv.length > 0 && isAssignment(argv[0]!)) {
    const name = argv.shift()!.split("=")[0]!
    if (!knownVariable(name)) return `sets ${name}, which nothing reads`
  }
  const [program, ...args] = argv
  // Assignments alone (an environment file's lines): the names were checked above.
  if (program === undefined) return undefined
  if (systemPrograms.has(program)) return undefined
  if (program === "sudo") return problem(command, args[0] === "-u" ? args.slice(2) : args)
  switch (program) {
    case "export":
      return args.map((a) => a.split("=")[0]!).filter((name) => !knownVariable(name)).map((n) => `exports ${n}, which nothing reads`)[0]
    case "source":
      // The one file paygate writes to be sourced: the sandbox's credentials (test/terminal-and-restarts.test.ts sources it).
      return args[0] === "data/sandbox.env" ? undefined : `sources ${args[0]}, which paygate does not write`
    case "node":
      return ((file) => file === undefined || !existsSync(join(repoRoot, file)) ? `runs node on a missing file ${file}` : undefined)(
        args.find((a) => !a.startsWith("-"))
      )
    case "npx": {
      if (args[0] !== "vitest" || args[1] !== "run") return `runs npx ${args.join(" ")}, which no check knows`
      return args.slice(2).filter((a) => !a.startsWith("-") && !existsSync(join(repoRoot, a))).map((a) => `runs the missing tests ${a}`)[0]
    }
    case "npm":
      return npmProblem(command, args)
    case "curl":
      return curlProblem(args)
    default:
      return `runs ${program}, which no check knows`
  }
}

const npmProblem = (command: DocCommand, args: ReadonlyArray<string>): string | undefined => {
  const [verb, ...rest] = args
  if (verb === "install" || verb === "ci") return undefined
  if (verb === "start" || verb === "test") return scripts[verb] === undefined ? `npm ${verb} is not a script` : undefined
  if (verb === "exec") {
    // `npm exec -- node file.mts`: a file the page tells the reader to save.
    const file = rest.filter((a) => a !== "--" && a !== "node")[0]
    return file !== undefined && readDoc(command.file).includes(`save this as \`${file}\``) ? undefined : `npm exec of ${file}, which the page does not write`
  }
  if (verb !== "run") return `npm ${verb}, which no check knows`
  const [script, ...cliArgs] = rest.filter((a) => a !== "-s")
  if (script === undefined || scripts[script] === undefined) return `npm run ${script}, which is not a script`
  const source = cliSources[script]
  if (source === undefined) return cliArgs.length === 0 ? undefined : `passes arguments to npm run ${script}, which no check knows`
  const usage = readFileSync(join(repoRoot, source), "utf8")
  const passed = cliArgs.filter((a) => a !== "--")
  const unknownFlag = passed.filter((a) => /^--?[a-z]/.test(a)).find((flag) => !usage.includes(flag))
  if (unknownFlag !== undefined) return `passes ${unknownFlag} to npm run ${script}, whose usage does not name it`
  // The admin CLI's and the webhooks CLI's subcommands: the first words before any flag.
  const subcommand = passed.slice(0, script === "admin" ? 2 : 1).filter((a) => /^[a-z][a-z-]*$/.test(a)).join(" ")
  if ((script === "admin" || script === "webhooks") && subcommand !== "" && !usage.includes(subcommand)) {
    return `runs npm run ${script} -- ${subcommand}, which its usage does not name`
  }
  return undefined
}

const curlProblem = (args: ReadonlyArray<string>): string | undefined => {
  const url = args.find((a) => /^(https?:\/\/|\$PAYGATE_URL)/.test(a))
  if (url === undefined) return "curl without a URL"
  const explicit = args.indexOf("-X")
  const method = explicit >= 0 ? args[explicit + 1]! : args.includes("-d") ? "POST" : "GET"
  const path = url.replace(/^(https?:\/\/[^/]+|\$PAYGATE_URL)/, "").split("?")[0]!
  return routeOf(method, path) === undefined ? `curl ${method} ${path}, which is no route of the API` : undefined
}

const commands = documentationFiles.flatMap(shellCommands)

describe("the documentation", () => {
  it.each(documentationFiles)("%s names nothing outside the repository; its links and anchors resolve", (file) => {
    const text = readDoc(file)
    expect(text).not.toMatch(/\.\.\/shared\//)
    for (const { target, fragment } of relativeLinks(text)) {
      const path = target === "" ? join(repoRoot, file) : resolve(dirname(join(repoRoot, file)), target)
      expect(existsSync(path), `${file} links to ${target}`).toBe(true)
      if (fragment !== undefined && statSync(path).isFile() && path.endsWith(".md")) {
        expect([...anchors(readFileSync(path, "utf8"))], `${file} links to ${target}#${fragment}`).toContain(fragment)
      }
    }
  })

  it("the link checker finds broken links and anchors", () => {
    expect(relativeLinks("[a](missing.md) [b](#nowhere) `[c](code.md)` [d](https://x.example)")).toEqual([
      { target: "missing.md", fragment: undefined },
      { target: "", fragment: "nowhere" }
    ])
    expect([...anchors("# API rules\n## 1. Errors and codes\n### Webhooks on your machine: `npm run listen`, test events")])
      .toEqual(["api-rules", "1-errors-and-codes", "webhooks-on-your-machine-npm-run-listen-test-events"])
  })

  it("the table of contents (docs/README.md) lists every page of docs/", () => {
    const toc = readDoc("docs/README.md")
    const listed = new Set(relativeLinks(toc).map(({ target }) => target))
    for (const file of documentationFiles.filter((f) => f.startsWith("docs/") && f !== "docs/README.md")) {
      expect(listed, `docs/README.md lists ${file}`).toContain(file.slice("docs/".length))
    }
  })

  it("every picture in docs/ is small enough to load at once (under 60 KB)", () => {
    const pictures = readdirSync(join(repoRoot, "docs")).filter((name) => /\.(png|jpe?g|gif|webp|svg)$/.test(name))
    expect(pictures.length).toBeGreaterThan(0)
    for (const name of pictures) expect(statSync(join(repoRoot, "docs", name)).size, name).toBeLessThan(60_000)
  })

  it("the README is at most 150 lines and maps the docs", () => {
    const readme = readDoc("README.md")
    expect(readme.split("\n").length).toBeLessThanOrEqual(150)
    for (const page of ["getting-started", "accepting-payments", "api-rules", "configuration", "going-live"]) {
      expect(readme).toContain(`(docs/${page}.md`)
    }
  })

  it("has shell commands to check, and each names a script, flag, route, file or variable that exists", () => {
    expect(commands.length).toBeGreaterThan(20)
    const problems = commands.flatMap((command) =>
      simpleCommands(command.text).flatMap((words) => {
        const found = problem(command, words)
        return found === undefined ? [] : [`${command.file}:${command.line}: ${found}`]
      })
    )
    expect(problems).toEqual([])
  })

  it("the command check refuses what does not exist", () => {
    const at = { file: "README.md", line: 1, text: "" }
    const check = (text: string) => simpleCommands(text).map((words) => problem(at, words))
    expect(check("npm run nothing")).toEqual(["npm run nothing, which is not a script"])
    expect(check("npm run pay -- pay_1 --no-such-flag")).toEqual(["passes --no-such-flag to npm run pay, whose usage does not name it"])
    expect(check("npm run admin -- partner explode")).toEqual(["runs npm run admin -- partner explode, which its usage does not name"])
    expect(check("curl -s -X POST \"$PAYGATE_URL/v1/merchant/payments\"")).toEqual(["curl POST /v1/merchant/payments, which is no route of the API"])
    expect(check("NO_SUCH_SETTING=1 npm start")).toEqual(["sets NO_SUCH_SETTING, which nothing reads"])
    expect(check("npx vitest run test/nothing.test.ts")).toEqual(["runs the missing tests test/nothing.test.ts"])
    expect(check("rm -rf data")).toEqual(["runs rm, which no check knows"])
    expect(check("curl -s \"$PAYGATE_URL/v1/gateway/payment/$PAYMENT_ID/status?maxPollMs=10000\"")).toEqual([undefined])
  })

  it("the sandbox walkthrough's commands use the printed address, not a hard-coded port", () => {
    const page = readDoc("docs/getting-started.md")
    const section = page.slice(page.indexOf("## Pay a sandbox payment"), page.indexOf("\n## ", page.indexOf("## Pay a sandbox payment") + 1))
    const walkthrough = commands.filter((c) => c.file === "docs/getting-started.md" && section.includes(c.text.split(" ")[0]!) && c.text.includes("$PAYMENT_ID"))
    expect(walkthrough.length).toBeGreaterThan(3)
    for (const command of [...walkthrough, ...commands.filter((c) => c.file === "README.md" && /^(curl|npm run)/.test(c.text))]) {
      expect(command.text).not.toContain("localhost:3000")
      expect(command.text).toContain("$")
    }
  })

  it("the sample token address is where the local chain deploys TUSDC (anvil #0's first contract)", () => {
    const usdc = getContractAddress({ from: Chain.anvilAccount(0).address, nonce: 0n })
    expect(readDoc("docs/getting-started.md")).toContain(`erc20:${usdc.slice(0, 6)}…${usdc.slice(-4)}`)
  })
})
