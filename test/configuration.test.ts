import { Configuration } from "@paygate/adapters"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = process.cwd()

// Read by Node itself, documented for operators, never by paygate's code.
const nodeVariables = ["NODE_OPTIONS"]

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sources(path)
    return name.endsWith(".ts") ? [path] : []
  })

// The names in the first column of docs/configuration.md's "Environment variables" table.
const documentedVariables = () => {
  const page = readFileSync(join(root, "docs", "configuration.md"), "utf8")
  const section = page.slice(page.indexOf("## Environment variables"))
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("\n|")))
  return table.split("\n").filter((line) => line.startsWith("| `")).flatMap((line) =>
    [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)
  )
}

describe("configuration", () => {
  it("docs/configuration.md's table lists exactly the variables of Configuration, each once", () => {
    const listed = documentedVariables()
    expect(listed.length).toBe(new Set(listed).size)
    expect([...listed].sort()).toEqual([...Configuration.variables, ...nodeVariables].sort())
  })

  it("no module reads the environment but Configuration", () => {
    const readers = ["packages/domain/src", "packages/adapters/src", "packages/http/src", "packages/worker/src", "app"]
      .flatMap((dir) => sources(join(root, dir)))
      .filter((file) => !file.endsWith(join("adapters", "src", "Configuration.ts")))
      // Before the configuration is read, npm start moves its default ports off busy ones by setting
      // PORT / LOCAL_CHAIN_PORT, which Configuration then reads: it writes, it does not configure.
      .filter((file) => !file.endsWith(join("app", "Ports.ts")))
      .filter((file) => /\bConfig\.(String|Redacted|Port|Int|Number|Boolean|Literals|Literal|Duration|Url|NonEmptyString)\(|process\.env\b/.test(readFileSync(file, "utf8")))
    expect(readers).toEqual([])
  })
})
