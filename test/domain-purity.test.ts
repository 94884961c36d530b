import { describe, expect, it } from "vitest"
import { checkDomain, findViolations } from "../scripts/domain-purity.mjs"

describe("domain purity check", () => {
  it("passes on the domain package as it is", () => {
    expect(checkDomain(process.cwd())).toEqual([])
  })

  it("flags imports other than effect and relative files", () => {
    expect(findViolations("a.ts", `import { x } from "effect"\nimport { y } from "effect/crypto"\nimport z from "./z.ts"`)).toEqual([])
    expect(findViolations("a.ts", `import { Pool } from "pg"`)).toEqual(['a.ts: imports "pg" (the domain may import only effect, and none of its HTTP modules)'])
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

  it("flags HTTP statuses, effect's HTTP modules and the API's header names, but not in comments", () => {
    expect(findViolations("a.ts", `export class E extends Schema.TaggedError<E>()("E", {}, { httpApiStatus: 404 }) {}`)).toEqual([
      "a.ts:1: holds an HTTP status or API (the HTTP API maps errors to statuses)"
    ])
    expect(findViolations("a.ts", `import { HttpApiEndpoint } from "effect/http-api"`)).toHaveLength(2)
    expect(findViolations("a.ts", `import { HttpServerResponse } from "effect/http"`)).toHaveLength(2)
    expect(findViolations("a.ts", `const m = "Send the Merchant-Id header."`)).toEqual(["a.ts:1: names a header of the HTTP API"])
    expect(findViolations("a.ts", `const h = { "idempotency-key": k }`)).toHaveLength(1)
    expect(findViolations("a.ts", "/** The Svc-Version a caller asked for; never an httpApiStatus. */\nconst v = version")).toEqual([])
  })

  it("flags wire shapes: an OpenAPI component name or a wire field's decoding default, but not in comments", () => {
    expect(findViolations("a.ts", `export const Amount = Schema.Struct({ unit: Schema.String }).annotate({ identifier: "Amount" })`)).toEqual([
      "a.ts:1: names a wire shape (an OpenAPI component: the HTTP API's wire schemas name them)"
    ])
    expect(findViolations("a.ts", "const f = Schema.NullOr(Schema.String).pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))")).toHaveLength(1)
    expect(findViolations("a.ts", "/** Shown under the identifier: Amount on the wire. */\nconst a = amount")).toEqual([])
  })
})
