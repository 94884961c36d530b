import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { checkBoundaries } from "../scripts/boundaries.mjs"

const manifests: Record<string, ReadonlyArray<string>> = {
  domain: [],
  adapters: ["domain"],
  http: ["domain"],
  worker: ["domain"]
}

// What packages' tests alone import (devDependencies).
const devManifests: Record<string, ReadonlyArray<string>> = { http: ["adapters"] }

let root: string | undefined
afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true })
})

// A repository of the four packages that follows the rule, plus the files of `extra`.
const fixture = (extra: Record<string, string> = {}, deps: Record<string, ReadonlyArray<string>> = manifests) => {
  root = mkdtempSync(join(tmpdir(), "boundaries-"))
  const files: Record<string, string> = {
    "packages/domain/src/index.ts": `import { Effect } from "effect"\nexport * from "./Payment.ts"`,
    "packages/domain/src/Payment.ts": `import { Schema } from "effect"`,
    "packages/adapters/src/index.ts": `import { Payment } from "@paygate/domain"\nimport { x } from "./internal/Row.ts"`,
    "packages/adapters/src/internal/Row.ts": `export const x = 1`,
    "packages/http/src/index.ts": `import { Payment } from "@paygate/domain"`,
    "packages/http/test/Api.test.ts": `import { x } from "../src/index.ts"\nimport { h } from "../../../test/support/Harness.ts"\nimport { Sql } from "@paygate/adapters"`,
    "packages/worker/src/index.ts": `import { Payment } from "@paygate/domain"`,
    "test/support/Harness.ts": `import { ServiceRoutes } from "@paygate/http"`,
    "test/embedding.test.ts": `import { Payments } from "@paygate/domain"\nimport { h } from "./support/Harness.ts"`,
    "app/main.ts": `import { Api } from "@paygate/http"\nimport { Worker } from "@paygate/worker"`,
    ...extra
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  for (const [pkg, uses] of Object.entries(deps)) {
    const dependencies = Object.fromEntries([["effect", "~4.1.0"], ...uses.map((dep) => [`@paygate/${dep}`, "0.1.0"])])
    const devDependencies = Object.fromEntries((devManifests[pkg] ?? []).map((dep) => [`@paygate/${dep}`, "0.1.0"]))
    writeFileSync(join(root, "packages", pkg, "package.json"), JSON.stringify({ name: `@paygate/${pkg}`, dependencies, devDependencies }))
  }
  return checkBoundaries(root)
}

describe("the dependency rule between packages (npm run lint)", () => {
  it("holds for the repository as it is", () => {
    expect(checkBoundaries(process.cwd())).toEqual([])
  })

  it("holds for a fixture that follows it", () => {
    expect(fixture()).toEqual([])
  })

  it("fails on an adapter reaching into another adapter; shared rows in a module of their own are fine", () => {
    expect(fixture({
      "packages/adapters/src/SqlPayments.ts": `import { compareAndSet } from "./internal/PaymentWrites.ts"\nexport const make = 1`,
      "packages/adapters/src/internal/PaymentWrites.ts": `export const compareAndSet = 1`,
      "packages/adapters/src/SqlReceipts.ts": `import { compareAndSet } from "./SqlPayments.ts"`,
      "packages/adapters/src/webhooks/SqlQueue.ts": `import { make } from "../SqlPayments.ts"`,
      "packages/adapters/src/SqlPersistence.ts": `import { make } from "./SqlPayments.ts"`
    })).toEqual([
      `packages/adapters/src/SqlReceipts.ts: imports "./SqlPayments.ts" (an adapter does not reach into another: share rows and statements through a module of their own)`,
      `packages/adapters/src/webhooks/SqlQueue.ts: imports "../SqlPayments.ts" (an adapter does not reach into another: share rows and statements through a module of their own)`
    ])
  })

  it("fails on a seeded wrong-way import: http importing the worker", () => {
    expect(fixture({ "packages/http/src/Jobs.ts": `import { WorkerLive } from "@paygate/worker"` })).toEqual([
      `packages/http/src/Jobs.ts: imports "@paygate/worker" (http may import @paygate/domain, @paygate/observability)`,
      `packages/http/package.json: its sources import @paygate/worker but do not declare it`
    ])
  })

  it("fails on a seeded wrong-way import: http's sources importing the adapters (they see the domain's ports only)", () => {
    expect(fixture({ "packages/http/src/Sql.ts": `import { Database } from "@paygate/adapters"` })).toEqual([
      `packages/http/src/Sql.ts: imports "@paygate/adapters" (http may import @paygate/domain, @paygate/observability)`,
      `packages/http/package.json: its sources import @paygate/adapters but do not declare it`
    ])
  })

  it("fails on a seeded wrong-way import in a test: an http test importing the worker (cross-package tests go in test/)", () => {
    expect(fixture({ "packages/http/test/Checkout.test.ts": `import { Jobs } from "@paygate/worker"` })).toEqual([
      `packages/http/test/Checkout.test.ts: imports "@paygate/worker" (http's tests may import it and @paygate/domain, @paygate/observability, @paygate/adapters; tests of several packages together go in test/)`,
      `packages/http/package.json: its tests import @paygate/worker but do not declare it`
    ])
  })

  it("fails on a composition root importing a package its own package.json does not declare", () => {
    const violations = fixture({ "app/package.json": JSON.stringify({ name: "@paygate/app", dependencies: { "@paygate/http": "0.1.0" } }) })
    expect(violations).toEqual([`app/package.json: the composition root imports @paygate/worker but does not declare it`])
  })

  it.each([
    ["the worker importing http", "packages/worker/src/Api.ts", `import { ServiceRoutes } from "@paygate/http"`],
    ["the worker importing the adapters (its ports come from the composition root)", "packages/worker/src/Chains.ts", `import { Chain } from "@paygate/adapters"`],
    ["a worker test importing http", "packages/worker/test/Api.test.ts", `import { ServiceRoutes } from "@paygate/http"`],
    ["a test importing another package's internals by name", "packages/worker/test/Row.test.ts", `import { x } from "@paygate/adapters/src/internal/Row.ts"`],
    ["a test importing another package's tests by name", "packages/worker/test/A.test.ts", `import { x } from "@paygate/http/test/Api.test.ts"`],
    ["the domain importing an adapter", "packages/domain/src/Sql.ts", `import { Database } from "@paygate/adapters"`],
    ["the domain importing anything but effect", "packages/domain/src/Pg.ts", `import { Pool } from "pg"`],
    ["adapters importing http", "packages/adapters/src/Routes.ts", `export { ServiceRoutes } from "@paygate/http"`],
    ["http querying the database itself", "packages/http/src/Counts.ts", `import { SqlClient } from "effect/sql"`],
    ["the worker querying the database itself", "packages/worker/src/Counts.ts", `import { PgClient } from "@effect/sql-pg"`],
    ["a source reaching into another package by path", "packages/http/src/Row.ts", `import { x } from "../../adapters/src/internal/Row.ts"`],
    ["a test importing another package's internals", "packages/worker/test/Row.test.ts", `import { x } from "../../adapters/src/internal/Row.ts"`],
    ["a test importing another package's tests", "packages/worker/test/W.test.ts", `import { x } from "../../http/test/Api.test.ts"`],
    ["a cross-package test importing a package's sources", "test/x.test.ts", `const m = await import("../packages/http/src/index.ts")`],
    ["the composition root importing a package by path", "app/api.ts", `import "../packages/http/src/index.ts"`]
  ])("fails on %s", (_, file, source) => {
    const violations = fixture({ [file]: source })
    expect(violations.filter((violation) => violation.startsWith(`${file}: `))).toHaveLength(1)
  })

  it("fails on a package declaring a dependency the rule forbids", () => {
    expect(fixture({}, { ...manifests, http: ["domain", "adapters", "worker"] })).toEqual([
      "packages/http/package.json: declares @paygate/adapters (http may depend on @paygate/domain, @paygate/observability)",
      "packages/http/package.json: declares @paygate/worker (http may depend on @paygate/domain, @paygate/observability)"
    ])
  })

  it("ignores imports in comments", () => {
    expect(fixture({ "packages/domain/src/Doc.ts": `/** e.g. \`import { Database } from "@paygate/adapters"\` */\n// import "pg"` })).toEqual([])
  })
})
