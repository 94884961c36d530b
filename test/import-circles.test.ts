import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { circlesIn } from "../scripts/circles.mjs"

let root: string | undefined
afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true })
})

// A repository holding only `files`; its circles.
const circlesOf = (files: Record<string, string>) => {
  root = mkdtempSync(join(tmpdir(), "circles-"))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return circlesIn(root)
}

const advice = "move what they share into a module of its own"

describe("no import circles (npm run lint)", () => {
  it("holds for the repository as it is", () => {
    expect(circlesIn(process.cwd())).toEqual([])
  })

  it("names a circle of three files in import order, wherever the files are", () => {
    expect(circlesOf({
      "packages/adapters/src/chain/Runtime.ts": `import { send } from "./Sender.ts"\nexport const runtime = 1`,
      "packages/adapters/src/chain/Sender.ts": `import { observe } from "./Observe.ts"\nexport const send = 1`,
      "packages/adapters/src/chain/Observe.ts": `import { runtime } from "./Runtime.ts"\nexport const observe = 1`,
      "bench/gateway.ts": `import { scenarios } from "./scenarios.ts"`,
      "bench/scenarios.ts": `export { load } from "./gateway.ts"`
    })).toEqual([
      `import circle: bench/gateway.ts → bench/scenarios.ts → bench/gateway.ts; ${advice}`,
      `import circle: packages/adapters/src/chain/Observe.ts → packages/adapters/src/chain/Runtime.ts → ` +
      `packages/adapters/src/chain/Sender.ts → packages/adapters/src/chain/Observe.ts; ${advice}`
    ])
  })

  it("counts type-only imports (erased at run time, still a tangle) and marks them", () => {
    expect(circlesOf({
      "packages/domain/src/testing/MemoryPayouts.ts": `import type { Refunds } from "./MemoryRefunds.ts"\nexport type Payouts = 1`,
      "packages/domain/src/testing/MemoryRefunds.ts": `import { type Payouts, x } from "./MemoryPayouts.ts"\nexport type Refunds = 1`
    })).toEqual([
      `import circle: packages/domain/src/testing/MemoryPayouts.ts → (type) packages/domain/src/testing/MemoryRefunds.ts → ` +
      `packages/domain/src/testing/MemoryPayouts.ts; ${advice}`
    ])
  })

  // b.ts imports a.js: the file a.js, or a.ts as the compiler resolves it.
  it.each([
    ["a lazy import()", "a.ts", `export const later = () => import("./b.ts")`],
    ["an import() in a type", "a.ts", `export type B = typeof import("./b.ts")`],
    ["an import after a regular expression that holds //", "a.ts", `const url = /^https?:\\/\\//\nif (url.test("")) await import("./b.ts")`],
    ["a JSDoc type in a browser module", "a.js", `/** @typedef {import("./b.ts").B} B */\nexport {}`],
    ["the file's own package by name, through its entry", "a.ts", `import { b } from "@paygate/domain"`]
  ])("finds a circle closed by %s", (_, file, source) => {
    const circles = circlesOf({
      "packages/domain/package.json": JSON.stringify({ name: "@paygate/domain", exports: { ".": "./src/index.ts" } }),
      "packages/domain/src/index.ts": `export * from "./b.ts"`,
      [`packages/domain/src/${file}`]: source,
      "packages/domain/src/b.ts": `import "./a.js"\nexport const b = 1`
    })
    expect(circles).toHaveLength(1)
    expect(circles[0]).toContain(`packages/domain/src/${file} → `)
  })

  it("ignores imports in comments, strings and template literals", () => {
    expect(circlesOf({
      "app/a.ts": `// import "./b.ts"\n/* import "./b.ts" */\nexport const s = "import './b.ts'"\nexport const t = \`import "./b.ts"\``,
      "app/b.ts": `import { s } from "./a.ts"`
    })).toEqual([])
  })

  it("is broken by moving what the files share into a module of its own", () => {
    expect(circlesOf({
      "bench/lib/context.ts": `export interface Context {}`,
      "bench/gateway.ts": `import type { Context } from "./lib/context.ts"`,
      "bench/scenarios.ts": `import { load } from "./gateway.ts"\nimport type { Context } from "./lib/context.ts"`
    })).toEqual([])
  })
})
