/**
 * The repository's documentation stands alone and matches what the service does (issue 15, item 10):
 * no link leads outside the repository or to a missing file, the commands a reader pastes use the
 * address `npm start` printed instead of a hard-coded port, and the sample token address is the one
 * the local chain really deploys to.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { getContractAddress } from "viem"
import { describe, expect, it } from "vitest"
import { Chain } from "@paygate/adapters"
import { repoRoot } from "./support/ServiceProcess.ts"

const docs = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...readdirSync(join(repoRoot, "packages")).map((p) => `packages/${p}/README.md`).filter((f) => existsSync(join(repoRoot, f)))
]
const read = (file: string) => readFileSync(join(repoRoot, file), "utf8")

describe("the documentation", () => {
  it.each(docs)("%s names nothing outside the repository and links only to files that exist", (file) => {
    const text = read(file)
    expect(text).not.toMatch(/\.\.\/shared\//)
    const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target))
    for (const target of links) expect(existsSync(resolve(dirname(join(repoRoot, file)), target)), `${file} links to ${target}`).toBe(true)
  })

  it("the sandbox walkthrough's commands use the printed address, not a hard-coded port", () => {
    const readme = read("README.md")
    const section = readme.slice(readme.indexOf("### Pay a sandbox payment"), readme.indexOf("### Merchant backends"))
    const commands = section.split("\n").filter((line) => /^(curl|npm run)/.test(line.trim()))
    expect(commands.length).toBeGreaterThan(3)
    for (const command of commands) expect(command).not.toContain("localhost:3000")
    expect(section).toContain("$PAYGATE_URL")
  })

  it("the sample token address is where the local chain deploys TUSDC (anvil #0's first contract)", () => {
    const usdc = getContractAddress({ from: Chain.anvilAccount(0).address, nonce: 0n })
    expect(read("README.md")).toContain(`erc20:${usdc.slice(0, 6)}…${usdc.slice(-4)}`)
  })
})
