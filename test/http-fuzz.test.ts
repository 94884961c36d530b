import { CredentialAdmin } from "@paygate/adapters"
import { errorCodes, statusOf } from "@paygate/http"
import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { forEachDatabase, makeTestServer, type TestDatabase, type TestServer } from "./support/TestServer.ts"

// Bad input never crashes the service and never responds 500, on every operation of /openapi.json:
// - a table sends malformed strings to every string of every operation (each path id, each
//   documented query parameter, each string of a well-shaped JSON body): NUL, lone surrogates,
//   invalid percent-encodings and UTF-8, very long values; each must answer the contract's code
//   (API rules §8: a path id is the route's documented not-found, 404; §1: a query or body string
//   params_validation; §7: a body over 64 KiB invalid_params);
// - a fast-check property sends random malformed bodies, headers (non-ASCII bytes included), path
//   segments and query strings to every operation (and to wrong methods and unknown paths);
// - the table runs once more against a server with the request boundary's string checks removed
//   (server/WellFormedText.ts, server/PathIds.ts), and must fail there: it catches that regression.

// ---------------------------------------------------------------------------------------------
// Operations, as /openapi.json documents them

interface Operation {
  readonly method: string
  /** `/v1/payments/{id}` */
  readonly template: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
  readonly headerParams: ReadonlyArray<string>
  /** A well-shaped JSON body (every property, strings "text"), when the operation takes one. */
  readonly body: unknown
  /** Security schemes of its first requirement (none: public). */
  readonly schemes: ReadonlyArray<string>
  /** The codes its 404 response documents. */
  readonly notFound: ReadonlySet<string>
  /** The fields the body's object at `path` takes, when its schema takes no others (`additionalProperties: false`). */
  readonly fieldsAt: (path: JsonPath) => ReadonlySet<string> | undefined
}

const methods = ["get", "post", "put", "patch", "delete"]

const operationsOf = (spec: any): ReadonlyArray<Operation> => {
  const resolve = (schema: any): any => (schema?.$ref === undefined ? schema : resolve(spec.components.schemas[schema.$ref.split("/").pop()]))
  // A value of `schema` with every property present; strings are "text", so each can be replaced.
  const sample = (raw: any, depth = 0): unknown => {
    const schema = resolve(raw)
    if (schema === undefined || depth > 8) return null
    const alternatives = schema.anyOf ?? schema.oneOf
    if (alternatives !== undefined) return sample(alternatives.find((s: any) => resolve(s).type !== "null") ?? alternatives[0], depth + 1)
    if (schema.enum !== undefined) return schema.enum[0]
    if (schema.const !== undefined) return schema.const
    switch (schema.type) {
      case "object": {
        const properties = Object.entries(schema.properties ?? {})
        if (properties.length === 0) return { field: "text" }
        return Object.fromEntries(properties.map(([name, property]) => [name, sample(property, depth + 1)]))
      }
      case "array":
        return [sample(schema.items, depth + 1)]
      case "string":
        return "text"
      case "integer":
      case "number":
        return 1
      case "boolean":
        return true
      default:
        return null
    }
  }
  const codesOf = (response: any): Array<string> => {
    const schema = resolve(response?.content?.["application/json"]?.schema)
    if (schema === undefined) return []
    if (schema.anyOf !== undefined) return schema.anyOf.flatMap((s: any) => codesOf({ content: { "application/json": { schema: s } } }))
    return resolve(schema.properties?.code)?.enum ?? []
  }
  // The schema of the value at `path` in a body of `schema` (the first alternative that has one).
  const schemaAt = (raw: any, path: JsonPath): any => {
    const schema = resolve(raw)
    if (path.length === 0 || schema === undefined) return schema
    const alternatives = schema.anyOf ?? schema.oneOf
    if (alternatives !== undefined) return alternatives.map((s: any) => schemaAt(s, path)).find((s: any) => s !== undefined)
    const [head, ...rest] = path
    return schemaAt(typeof head === "number" ? schema.items : schema.properties?.[head!], rest)
  }
  return Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([template, operations]) =>
    Object.entries(operations)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]): Operation => {
        const parameters: Array<any> = operation.parameters ?? []
        const named = (where: string) => parameters.filter((p) => p.in === where).map((p) => p.name as string)
        const bodySchema = operation.requestBody?.content?.["application/json"]?.schema
        return {
          method: method.toUpperCase(),
          template,
          pathParams: named("path"),
          queryParams: named("query"),
          headerParams: named("header"),
          body: bodySchema === undefined ? undefined : sample(bodySchema),
          schemes: Object.keys(operation.security?.[0] ?? {}),
          notFound: new Set(codesOf(operation.responses?.["404"])),
          fieldsAt: (path) => {
            const schema = schemaAt(bodySchema, path)
            return schema?.additionalProperties === false ? new Set(Object.keys(schema.properties ?? {})) : undefined
          }
        }
      })
  )
}

// ---------------------------------------------------------------------------------------------
// Malformed strings

/** Percent-encodes every code point as its UTF-8 bytes; a lone surrogate as the 3 bytes UTF-8 would give it (WTF-8). */
const percentEncode = (text: string): string =>
  Array.from(text, (char) => {
    if (/^[A-Za-z0-9_.~-]$/.test(char)) return char
    const cp = char.codePointAt(0)!
    const bytes = cp < 0x80
      ? [cp]
      : cp < 0x800
      ? [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)]
      : cp < 0x10000
      ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
      : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)]
    return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")
  }).join("")

/** Raw (already encoded) path segments and query values that are not well-formed text once decoded. */
const malformedEncoded = {
  nul: "pay_a%00b",
  "lone surrogate": "pay_%ED%A0%80",
  "low surrogate": percentEncode("\udc00x"),
  "invalid UTF-8": "pay_%C3%28",
  "invalid byte": "%FF",
  "overlong UTF-8": "%C0%80"
}

/** Strings of a JSON body that are not well-formed text. */
const malformedText = { nul: "a\u0000b", "lone surrogate": "a\ud800b", "low surrogate": "\udc00", "reversed pair": "\udc00\ud800" }

// ---------------------------------------------------------------------------------------------
// The server under test and what a request needs

interface World {
  readonly server: TestServer
  readonly partnerKey: string
  readonly walletKey: string
  readonly appId: string
  /** The merchant and payment of bodies and headers. */
  readonly merchantId: string
  readonly paymentId: string
  /** Those of path ids: the table deletes and cancels them. */
  readonly pathMerchantId: string
  readonly pathPaymentId: string
}

const makeWorld = async (server: TestServer): Promise<World> => {
  const partner = await server.partner()
  const wallet = await server.run(Effect.gen(function*() {
    return yield* (yield* CredentialAdmin).createApp({ name: "Fuzz wallet", mode: "sandbox" })
  }))
  const merchantId = await server.merchant(partner.sandbox)
  const pathMerchantId = await server.merchant(partner.sandbox)
  const payment = await server.payment(partner.sandbox, merchantId)
  const pathPayment = await server.payment(partner.sandbox, pathMerchantId)
  return {
    server,
    partnerKey: partner.sandbox,
    walletKey: wallet.walletApiKey,
    appId: wallet.appId,
    merchantId,
    paymentId: payment.paymentId,
    pathMerchantId,
    pathPaymentId: pathPayment.paymentId
  }
}

let keyCounter = 0

/** Headers that pass the operation's authentication (and its documented headers). */
const credentials = (world: World, operation: Operation): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const scheme of operation.schemes) {
    if (scheme === "PartnerApiKey") headers["api-key"] = world.partnerKey
    else if (scheme === "WalletApiKey") headers["api-key"] = world.walletKey
    else if (scheme === "MerchantId") headers["merchant-id"] = world.merchantId
    else if (scheme === "AppId") headers["app-id"] = world.appId
    else if (scheme === "ClientId") headers["client-id"] = "fuzz"
    else throw new Error(`${operation.method} ${operation.template}: no credentials for security scheme ${scheme}; teach this test`)
  }
  for (const name of operation.headerParams) {
    if (name === "merchant-id") headers[name] = world.merchantId
    else throw new Error(`${operation.method} ${operation.template}: no value for header ${name}; teach this test`)
  }
  if (operation.method === "POST") headers["idempotency-key"] = `fuzz-${Date.now()}-${keyCounter++}`
  return headers
}

const wallet = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const amount = { unit: "iso4217/USD", value: "1250" }
const checkout = { successUrl: "https://shop.example/paid", errorUrl: "https://shop.example/failed" }
const merchantProfile = () => ({
  merchantName: `Fuzz shop ${keyCounter++}`,
  merchantEmail: "owner@shop.example",
  iconUrl: "https://cdn.example/icon.png"
})

// An x402 facilitator request of the right shape (its signature does not verify: state, not shape).
const x402Requirements = () => ({
  scheme: "exact",
  network: "eip155:1",
  asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  amount: "1000",
  payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  maxTimeoutSeconds: 60
})
const x402Request = () => ({
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    resource: { url: "https://api.example/report", description: "A report", mimeType: "application/json" },
    accepted: x402Requirements(),
    payload: {
      signature: `0x${"11".repeat(65)}`,
      authorization: {
        from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        value: "1000",
        validAfter: "0",
        validBefore: "9999999999",
        nonce: `0x${"22".repeat(32)}`
      }
    }
  },
  paymentRequirements: x402Requirements()
})

/**
 * A body each operation accepts (or would, but for state such as an unknown option id), fresh on
 * each call: a malformed string in it is the only thing wrong, so without the boundary's check it
 * would reach the database. Every operation with a body needs one here.
 */
const validBodies: Record<string, (world: World) => unknown> = {
  "POST /v1/merchant/payment": () => ({ amount, referenceId: `order-${keyCounter++}`, checkout }),
  "POST /v1/payments": (world) => ({ merchantId: world.merchantId, amount, referenceId: `order-${keyCounter++}`, checkout }),
  "POST /v1/refunds": (world) => ({ paymentId: world.paymentId }),
  "POST /v1/payments/{id}/capture": () => ({ amount }),
  "POST /v1/merchant/payment/{id}/capture": () => ({ amount }),
  "POST /v1/links": (world) => ({
    merchantId: world.merchantId,
    title: "Donation",
    amount,
    usage: "single",
    invoice: { reference: `inv-${keyCounter++}`, dueDate: "2026-12-31", buyerEmail: "buyer@example.com", lines: [{ description: "Item", quantity: 1, unitValue: amount.value }] }
  }),
  "POST /v1/merchants": () => merchantProfile(),
  "PATCH /v1/merchants/{merchantId}": () => merchantProfile(),
  "POST /v1/merchants/{merchantId}/settlements/crypto": () => ({ settlements: [{ asset: usdc, destination: wallet }] }),
  "PUT /v1/merchants/{merchantId}/settlements/crypto/{id}": () => ({ destination: wallet }),
  "POST /v1/gateway/payment/{id}/options": () => ({ accounts: [wallet], refresh: null }),
  "POST /v1/gateway/payment/{id}/fetch": () => ({ optionId: "opt_unknown", data: "0x00" }),
  "POST /v1/gateway/payment/{id}/confirm": () => ({ optionId: "opt_unknown", results: [{ type: "walletRpc", data: ["0x00"] }], collectedData: null }),
  "POST /v1/gateway/payment/{id}/collect-data": () => ({
    account: wallet,
    data: { fullName: "Ada Lovelace", dob: "1990-12-10", pobCountry: "GB", pobAddress: "London", tosConfirmed: true }
  }),
  "POST /v1/plans": (world) => ({ merchantId: world.merchantId, name: "Fuzz plan", amount: { unit: "iso4217/USD", value: "1000" }, periodSeconds: 86_400 }),
  "POST /v1/gateway/plan/{id}/offer": () => ({ payer: wallet }),
  "POST /v1/gateway/plan/{id}/subscribe": () => ({ offer: "sof1.e30.AAAA", signature: "0x00" }),
  "POST /v1/gateway/subscription/{id}/cancel": () => ({ token: "sub1.e30.AAAA" }),
  "POST /v1/webhooks": (world) => ({ url: "https://hooks.example/paygate", events: ["payment.succeeded"], merchantId: world.merchantId }),
  "POST /dashboard/session": (world) => ({ apiKey: world.partnerKey }),
  "PATCH /v1/webhooks/{id}": () => ({ events: ["payment.succeeded"], status: "active" }),
  "POST /x402/verify": () => x402Request(),
  "POST /x402/settle": () => x402Request(),
  "POST /v1/team/invitations": () => ({ email: `member-${keyCounter++}@example.com`, role: "viewer" }),
  "PATCH /v1/team/members/{memberId}": () => ({ role: "viewer" }),
  "POST /dashboard/invitation": () => ({ token: "A".repeat(43), password: "a long enough password" })
}

const validBody = (world: World, operation: Operation): unknown => {
  if (operation.body === undefined) return undefined
  const make = validBodies[`${operation.method} ${operation.template}`]
  if (make === undefined) throw new Error(`${operation.method} ${operation.template}: no valid body; add one to validBodies`)
  return make(world)
}

/** An existing id for a path parameter where there is one (a merchant's, else the payment's). */
const validId = (world: World, param: string) => (param === "merchantId" ? world.pathMerchantId : world.pathPaymentId)

const pathOf = (world: World, operation: Operation, replace: Record<string, string> = {}) =>
  operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => replace[name] ?? validId(world, name))

const known = new Set<string>(errorCodes)

/** What is wrong with a response, if anything: a 500, or an error that is not the contract's `{code, message}` with its status. */
const contractViolation = (response: Response, text: string): string | undefined => {
  if (response.status >= 500) return `answered ${response.status}: ${text.slice(0, 200)}`
  if (response.status < 400) return undefined
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return `error without JSON: ${response.status} ${text.slice(0, 100)}`
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return `error body is not JSON: ${text.slice(0, 100)}`
  }
  if (Object.keys(body).sort().join() !== "code,message" || typeof body.message !== "string") {
    return `error body is not {code, message}: ${text.slice(0, 200)}`
  }
  if (!known.has(body.code)) return `unknown code ${body.code}`
  if (statusOf(body.code) !== response.status) return `${body.code} answered with ${response.status}`
  return undefined
}

interface Case {
  readonly operation: Operation
  readonly what: string
  readonly path: string
  readonly body?: string | Uint8Array | undefined
  /** The error codes it may answer (each with its own status); any contract answer but a 500 when absent. */
  readonly expect?: ReadonlySet<string> | undefined
}

const send = async (world: World, c: Case): Promise<string | undefined> => {
  const headers = credentials(world, c.operation)
  if (c.body !== undefined) headers["content-type"] = "application/json"
  const response = await world.server.fetch(`http://paygate.test${c.path}`, {
    method: c.operation.method,
    headers,
    ...(c.body === undefined ? {} : { body: c.body })
  })
  const text = await response.text()
  const label = `${c.operation.method} ${c.operation.template} with ${c.what} (${c.path.slice(0, 80)})`
  const violation = contractViolation(response, text)
  if (violation !== undefined) return `${label}: ${violation}`
  if (c.expect === undefined) return undefined
  const code = response.status >= 400 ? JSON.parse(text).code : undefined
  // Every case is of an operation that exists, whatever its strings hold.
  if (response.status >= 400 && /^No operation/.test(JSON.parse(text).message)) return `${label}: answered no such operation: ${text.slice(0, 160)}`
  if (!c.expect.has(code)) return `${label}: expected ${[...c.expect].join(" or ")}, answered ${response.status} ${text.slice(0, 160)}`
  return undefined
}

const paramsValidation = new Set(["params_validation"])
const invalidParams = new Set(["invalid_params"])

// `{"x":"<0xff>"}`: bytes that are not UTF-8.
const notUtf8 = new Uint8Array([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])

/** Each malformed string in each string of each operation, and the operation's well-formed request. */
const tableCases = (world: World, operations: ReadonlyArray<Operation>): ReadonlyArray<Case> =>
  operations.flatMap((operation): Array<Case> => {
    const cases: Array<Case> = []
    const valid = validBody(world, operation)
    const body = valid === undefined ? undefined : JSON.stringify(valid)
    const path = pathOf(world, operation)
    const add = (what: string, url: string, payload: Case["body"], expect?: ReadonlySet<string>) =>
      cases.push({ operation, what, path: url, body: payload, expect })
    // The well-formed request itself: any contract answer.
    add("well-formed input", path, body)
    for (const param of operation.pathParams) {
      const bad = { ...malformedEncoded, "stray percent": "pay_%", "id of 5000 chars": "x".repeat(5000) }
      for (const [what, value] of Object.entries(bad)) {
        add(`path ${param} = ${what}`, pathOf(world, operation, { [param]: value }), body, operation.notFound)
      }
      // Well-formed, so it reaches the lookup, which comes after the body's own checks (API rules §1).
      const afterBody = new Set([...operation.notFound, "invalid_params", "params_validation"])
      add(`path ${param} = id of 3000 chars`, pathOf(world, operation, { [param]: "x".repeat(3000) }), body, afterBody)
    }
    for (const param of operation.queryParams) {
      for (const [what, value] of Object.entries(malformedEncoded)) {
        add(`query ${param} = ${what}`, `${path}?${param}=${value}`, body, paramsValidation)
      }
      add(`query ${param} of 10000 chars`, `${path}?${param}=${"x".repeat(10_000)}`, body)
    }
    if (valid !== undefined) {
      // Each string of the valid body, with the malformed text put in at its start, middle and end
      // (so that, but for the boundary, the rest of the value would pass its own checks and reach
      // the database), and each string of the documented shape (every property, optional ones too).
      const variants = [
        ["valid", () => validBody(world, operation), ["start", "middle", "end"]],
        ["every-property", () => operation.body, ["whole"]]
      ] as const
      for (const [variant, make, places] of variants) {
        for (const at of stringsOf(make())) {
          const field = `body (${variant}) ${at.join(".")}`
          for (const [what, bad] of Object.entries(malformedText)) {
            for (const place of places) {
              const value = make()
              const changed = replaceAt(value, at, insert(stringAt(value, at), bad, place))
              add(`${field} = ${what} (${place})`, path, JSON.stringify(changed), paramsValidation)
            }
          }
          add(`${field} of 60000 chars`, path, JSON.stringify(replaceAt(make(), at, "x".repeat(60_000))))
        }
      }
      add("a body key with NUL", path, JSON.stringify({ ...(valid as object), "k\u0000": "v" }), paramsValidation)
      const huge = replaceAt(valid, stringsOf(valid)[0] ?? [], "x".repeat(70_000))
      add("a body over 64 KiB", path, JSON.stringify(huge), invalidParams)
      add("a body that is not UTF-8", path, notUtf8, invalidParams)
    }
    return cases
  })

type JsonPath = ReadonlyArray<string | number>

/** The paths of the string values in `value`. */
const stringsOf = (value: unknown, at: JsonPath = []): Array<JsonPath> => {
  if (typeof value === "string") return [at]
  if (Array.isArray(value)) return value.flatMap((element, index) => stringsOf(element, [...at, index]))
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, element]) => stringsOf(element, [...at, key]))
  return []
}

/** The string at `at` in `value`. */
const stringAt = (value: unknown, at: JsonPath): string => at.reduce((inner: any, key) => inner[key], value) as string

/** `bad` put into `text`: in its place, or instead of it. */
const insert = (text: string, bad: string, place: "start" | "middle" | "end" | "whole") => {
  const middle = Math.floor(text.length / 2)
  return { start: bad + text, middle: text.slice(0, middle) + bad + text.slice(middle), end: text + bad, whole: bad }[place]
}

/** `value` with the string at `at` replaced. */
const replaceAt = (value: unknown, at: JsonPath, replacement: string): unknown => {
  if (at.length === 0) return replacement
  const [head, ...rest] = at
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) }
  copy[head!] = replaceAt(copy[head!], rest, replacement)
  return copy
}

/** Sends every case of the table; answers what went wrong, and which operations it reached. */
const runTable = async (world: World, operations: ReadonlyArray<Operation>) => {
  const violations: Array<string> = []
  const reached = new Set<string>()
  for (const c of tableCases(world, operations)) {
    const violation = await send(world, c)
    reached.add(`${c.operation.method} ${c.operation.template}`)
    if (violation !== undefined) violations.push(violation)
  }
  return { violations, reached }
}

const fetchOperations = async (server: TestServer) => {
  const response = await server.fetch("http://paygate.test/openapi.json")
  return operationsOf(await response.json())
}

// ---------------------------------------------------------------------------------------------
// The random part

// Header values fetch can carry: latin1 without controls (bytes above 0x7f are the non-ASCII case).
const latin1 = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c < 0x7f || c > 0x9f).map((c) => String.fromCharCode(c))
const headerText = fc.string({ unit: latin1, maxLength: 40 }).map((s) => s.trim())

// Any UTF-16 text: NUL, controls and lone surrogates included.
const anyText = (maxLength: number) => fc.string({ unit: "binary", maxLength })

// Text with a NUL or a lone surrogate somewhere for sure (uniform code units would seldom give one).
const badText = fc.tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...Object.values(malformedText)), fc.string({ maxLength: 10 }))
  .map(([before, bad, after]) => before + bad + after)

const encodedText = fc.oneof(
  fc.constantFrom(...Object.values(malformedEncoded), "%", "%zz", "%E2%82", "x".repeat(5000)),
  anyText(30).map(percentEncode),
  badText.map(percentEncode),
  fc.string({ unit: "grapheme", maxLength: 10 }).map(percentEncode),
  fc.constantFrom("pay_unknown", "mer_unknown", "stl_unknown", "whe_unknown", "evt_unknown", "", "..", "pay_")
)

/** `undefined` but once in `odds` times: most requests get past the method, route and credential checks to their strings. */
const rarely = <A>(arbitrary: fc.Arbitrary<A>, odds = 10) =>
  fc.oneof({ weight: odds - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary })

const request = (operations: ReadonlyArray<Operation>) =>
  fc.record({
    operation: fc.constantFrom(...operations),
    otherMethod: rarely(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE")),
    unknownPath: rarely(fc.constant("/nowhere/{id}")),
    segments: fc.array(encodedText, { minLength: 3, maxLength: 3 }),
    keepSegment: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    query: fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...new Set(operations.flatMap((o) => o.queryParams)), "x"), anyText(5).map(percentEncode)), encodedText),
      { maxLength: 4 }
    ),
    body: fc.oneof(
      fc.constant({ kind: "none" as const }),
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.oneof(anyText(40), badText)).map(([pick, text]) => ({ kind: "mutated" as const, pick, text })) },
      fc.json({ maxDepth: 3 }).map((text) => ({ kind: "raw" as const, text })),
      anyText(50).map((text) => ({ kind: "raw" as const, text })),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => ({ kind: "bytes" as const, bytes }))
    ),
    credentials: fc.constantFrom("valid", "valid", "valid", "valid", "none"),
    headers: rarely(fc.record({
      apiKey: fc.option(headerText, { nil: undefined }),
      appId: fc.option(headerText, { nil: undefined }),
      version: fc.option(fc.oneof(fc.constantFrom("2026-02-18", "2026-02-19.preview", "2026-02-31"), headerText), { nil: undefined }),
      idempotencyKey: fc.option(headerText, { nil: undefined })
    }), 6),
    contentType: fc.constantFrom("application/json", "application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "")
  })

const randomProperty = (world: World, operations: ReadonlyArray<Operation>) =>
  fc.asyncProperty(request(operations), async (r) => {
    const template = r.unknownPath ?? r.operation.template
    let i = 0
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const index = i++
      return r.keepSegment[index] ? validId(world, name) : r.segments[index]!
    })
    const query = r.query.length === 0 ? "" : `?${r.query.map(([k, v]) => `${k}=${v}`).join("&")}`
    const headers: Record<string, string> = r.credentials === "valid" ? credentials(world, r.operation) : {}
    if (r.headers?.apiKey !== undefined) headers["api-key"] = r.headers.apiKey
    if (r.headers?.appId !== undefined) headers["app-id"] = r.headers.appId
    if (r.headers?.version !== undefined) headers["svc-version"] = r.headers.version
    if (r.headers?.idempotencyKey !== undefined) headers["idempotency-key"] = r.headers.idempotencyKey
    if (r.contentType !== "") headers["content-type"] = r.contentType
    let body: string | Uint8Array | undefined
    if (r.body.kind === "raw") body = r.body.text
    else if (r.body.kind === "bytes") body = r.body.bytes
    else if (r.body.kind === "mutated" && r.operation.body !== undefined) {
      const valid = validBody(world, r.operation)
      const strings = stringsOf(valid)
      body = JSON.stringify(strings.length === 0 ? valid : replaceAt(valid, strings[r.body.pick % strings.length]!, r.body.text))
    }
    const method = r.otherMethod ?? r.operation.method
    const response = await world.server.fetch(`http://paygate.test${path}${query}`, {
      method,
      headers,
      ...(method === "GET" || method === "HEAD" || body === undefined ? {} : { body })
    })
    const text = await response.text()
    const violation = contractViolation(response, text)
    expect(violation, `${method} ${path.slice(0, 100)}${query.slice(0, 100)}`).toBeUndefined()
    // An operation that exists is never "no such operation", whatever its path ids hold.
    const dotOrEmpty = path.split("/").slice(1).some((s) => s === "" || s === "." || s === "..")
    const routable = r.unknownPath === undefined && r.otherMethod === undefined && !dotOrEmpty
    if (routable && response.status >= 400) expect(JSON.parse(text).message, `${method} ${path.slice(0, 100)}`).not.toMatch(/^No operation/)
  })

/** The paths of the objects in `value`, itself included. */
const objectsOf = (value: unknown, at: JsonPath = []): Array<JsonPath> => {
  if (Array.isArray(value)) return value.flatMap((element, index) => objectsOf(element, [...at, index]))
  if (typeof value !== "object" || value === null) return []
  return [at, ...Object.entries(value).flatMap(([key, element]) => objectsOf(element, [...at, key]))]
}

/** `value` with the field `name` added to its object at `at` (an own field even for `__proto__`). */
const addField = (value: unknown, at: JsonPath, name: string, field: unknown): unknown => {
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) }
  if (at.length === 0) {
    Object.defineProperty(copy, name, { value: field, enumerable: true, writable: true, configurable: true })
    return copy
  }
  copy[at[0]!] = addField(copy[at[0]!], at.slice(1), name, field)
  return copy
}

// Field names: plausible ones (what a client might misspell or guess) and any well-formed text.
const fieldName = fc.oneof(
  fc.constantFrom("url", "mode", "id", "status", "amount", "partnerId", "__proto__", "constructor", "toString", ""),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 })
)

/**
 * A field no schema documents, added to an object of a valid body (or as the only field of an
 * operation that takes no body): `params_validation` naming it, never 500 nor an accepted request.
 */
const unknownFieldProperty = (world: World, operations: ReadonlyArray<Operation>) =>
  fc.asyncProperty(
    // The x402 facilitator's bodies are the x402 protocol's, whose clients add fields of their own
    // (extensions): it ignores them by design, so it is the one family left out here.
    fc.constantFrom(...operations.filter((o) => o.method !== "GET" && !o.template.startsWith("/x402/"))),
    fc.nat(),
    fieldName,
    fc.jsonValue({ maxDepth: 2 }),
    async (operation, pick, name, field) => {
      const valid = validBody(world, operation) ?? {}
      const closed = operation.body === undefined
        ? [[] as JsonPath]
        : objectsOf(valid).filter((at) => operation.fieldsAt(at) !== undefined)
      const at = closed[pick % closed.length]!
      fc.pre(!(operation.fieldsAt(at)?.has(name) ?? false))
      const headers = { ...credentials(world, operation), "content-type": "application/json" }
      const response = await world.server.fetch(`http://paygate.test${pathOf(world, operation)}`, {
        method: operation.method,
        headers,
        body: JSON.stringify(addField(valid, at, name, field))
      })
      const text = await response.text()
      const label = `${operation.method} ${operation.template} with ${JSON.stringify(name)} at ${JSON.stringify(at)}`
      expect(contractViolation(response, text), label).toBeUndefined()
      const answer = JSON.parse(text)
      expect({ status: response.status, code: answer.code }, label).toEqual({ status: 400, code: "params_validation" })
      // Named as written: a plain name as it is, any other quoted (its first 64 characters).
      const shown = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(name) ? name : JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name)
      expect(answer.message, label).toMatch(/^Unknown field /)
      expect(answer.message, label).toContain(shown)
    }
  )

// ---------------------------------------------------------------------------------------------

forEachDatabase("HTTP fuzz", (database) => {
  let world: World
  let operations: ReadonlyArray<Operation>

  beforeAll(async () => {
    world = await makeWorld(await makeTestServer(database))
    operations = await fetchOperations(world.server)
  })
  afterAll(async () => {
    await world?.server.close()
  })

  it("derives every operation from /openapi.json, the gateway's and the webhooks' included", () => {
    const listed = new Set(operations.map((o) => `${o.method} ${o.template}`))
    for (const operation of [
      "POST /v1/gateway/payment/{id}/options",
      "POST /v1/gateway/payment/{id}/fetch",
      "POST /v1/gateway/payment/{id}/confirm",
      "POST /v1/gateway/payment/{id}/collect-data",
      "POST /v1/webhooks",
      "DELETE /v1/webhooks/{id}",
      "POST /v1/events/{eventId}/redeliver"
    ]) expect(listed).toContain(operation)
    // Every path id has a documented not-found code to answer.
    for (const operation of operations.filter((o) => o.pathParams.length > 0)) {
      expect(operation.notFound.size, `${operation.method} ${operation.template} documents no 404`).toBeGreaterThan(0)
    }
    // Every operation with a body has a valid one here, and there is none for an operation that is gone.
    expect(Object.keys(validBodies).sort()).toEqual(operations.filter((o) => o.body !== undefined).map((o) => `${o.method} ${o.template}`).sort())
  })

  it("answers each malformed string of each operation with the contract's code, never 500", async () => {
    const { violations, reached } = await runTable(world, operations)
    expect(violations.slice(0, 20), `${violations.length} violations`).toEqual([])
    // Every operation was sent to: a new operation cannot escape the table.
    expect([...reached].sort()).toEqual(operations.map((o) => `${o.method} ${o.template}`).sort())
  })

  it("never responds 500 to random malformed requests, and every error is a contract {code, message} with its status", async () => {
    await fc.assert(randomProperty(world, operations), { numRuns: 1000 })
  })

  it("refuses an unknown body field on every operation with params_validation naming it", async () => {
    await fc.assert(unknownFieldProperty(world, operations), { numRuns: 400 })
  })
})

describe("HTTP fuzz: a seeded regression is caught", () => {
  let world: World | undefined

  afterAll(async () => {
    await world?.server.close()
    vi.doUnmock("../packages/http/src/server/WellFormedText.ts")
    vi.doUnmock("../packages/http/src/server/PathIds.ts")
    vi.resetModules()
  })

  it("fails the table on a server without the boundary's string checks", async () => {
    // The server as it was before them: strings go to the handlers as they come, and the router
    // answers a path it cannot decode with "no such operation".
    vi.resetModules()
    vi.doMock("../packages/http/src/server/WellFormedText.ts", async (importOriginal) => ({
      ...(await importOriginal<object>()),
      requireWellFormedText: () => Effect.void
    }))
    vi.doMock("../packages/http/src/server/PathIds.ts", async (importOriginal) => ({
      ...(await importOriginal<object>()),
      routableUrl: () => undefined
    }))
    const seeded: { makeTestServer: typeof makeTestServer; pglite: TestDatabase } = await import("./support/TestServer.ts")
    // Its 500s log their failures: expected here, so not printed.
    const quiet = (["log", "error", "group", "groupCollapsed", "groupEnd"] as const).map((name) => vi.spyOn(console, name).mockImplementation(() => {}))
    const { violations } = await (async () => {
      try {
        world = await makeWorld(await seeded.makeTestServer(seeded.pglite))
        return await runTable(world, await fetchOperations(world.server))
      } finally {
        for (const spy of quiet) spy.mockRestore()
      }
    })()
    const caught = (where: string, answer: string) => violations.some((v) => v.includes(`with ${where}`) && v.includes(answer))
    // NUL reaches PostgreSQL from a query value and a body string; an undecodable path id is "no such
    // operation"; a lone surrogate in a body is stored (or refused by jsonb). A path id with a NUL
    // does not respond 500 even here: the payment repository finds no payment for an id no row can
    // hold without asking PostgreSQL (so that it cannot fail a read it shares), and the other
    // routes check their ids' shape before any query.
    expect({
      pathNul: caught("path", "answered 500"),
      pathUndecodable: caught("path", "No operation"),
      queryNul: caught("query", "answered 500"),
      bodyNul: caught("body", "answered 500"),
      bodySurrogate: violations.some((v) => v.includes("with body") && v.includes("lone surrogate"))
    }).toEqual({ pathNul: false, pathUndecodable: true, queryNul: true, bodyNul: true, bodySurrogate: true })
  }, 120_000)
})
