import { describe, expect, it } from "vitest"
import { checkDomain, findViolations } from "../scripts/domain-purity.mjs"

describe("domain purity check", () => {
  it("passes on the domain package as it is", () => {
    expect(checkDomain(process.cwd())).toEqual([])
  })

  it("flags imports other than effect and relative files", () => {
    expect(findViolations("a.ts", `import { x } from "effect"\nimport { y } from "effect/crypto"\nimport z from "./z.ts"`)).toEqual([])
    expect(findViolations("a.ts", `import { Pool } from "pg"`)).toEqual(['a.ts: imports "pg" (the domain may import only effect)'])
    expect(findViolations("a.ts", `import * as fs from "node:fs"`)).toHaveLength(1)
    expect(findViolations("a.ts", `export { x } from "viem"`)).toHaveLength(1)
    expect(findViolations("a.ts", `const m = await import("node:crypto")`)).toHaveLength(1)
  })

  it("flags wall-clock time and direct randomness, but not in comments", () => {
    expect(findViolations("a.ts", "const t = Date.now()")).toEqual(["a.ts:1: reads wall-clock time (use Clock)"])
    expect(findViolations("a.ts", "const d = new Date()")).toHaveLength(1)
    expect(findViolations("a.ts", "const r = Math.random()")).toHaveLength(1)
    expect(findViolations("a.ts", "crypto.getRandomValues(buf)")).toHaveLength(1)
    expect(findViolations("a.ts", "/** Unlike Date.now() this uses Clock. */\n// Math.random() is not allowed")).toEqual([])
  })
})
