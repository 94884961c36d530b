/**
 * `npm run webhooks -- listen --forward-to <url>` (also `npm run listen -- …`) and
 * `npm run webhooks -- test <endpointId>`; `--help` lists the options.
 *
 * `listen` receives a partner's webhooks on a developer's machine without registering a private
 * address: it reads the partner's events through the API (`GET /v1/events`, so it works against a
 * remote service too and the SSRF guard stays closed), signs each like a delivery (Standard
 * Webhooks) with a secret it prints, forwards it to the local URL and prints what the receiver
 * answered. `test` asks the service to send a signed `webhook.test` event to a registered endpoint
 * (`POST /v1/webhooks/{id}/test`) and prints the receiver's answer.
 */
import { createHmac } from "node:crypto"
import { PaymentEventType } from "@paygate/domain"
import { createPaygateClient, PaygateError, signWebhook } from "@paygate/http"
import { askSecret, fail, parseCommandLine } from "./CommandLine.ts"

const usage = `Usage:
  npm run webhooks -- listen --forward-to <url> [options]   (or: npm run listen -- --forward-to <url>)
  npm run webhooks -- test <endpointId> [options]

listen: forwards the partner's new events (of the API key's mode) to a local URL as they happen,
signed like real deliveries with the secret it prints; prints each one and the receiver's answer.
test: the service sends a signed webhook.test event to a registered endpoint and reports the answer.

The partner's secret key is read from $PAYGATE_API_KEY, else asked for on the terminal; never
from the command line, where every user of the machine could read it (ps).

Options:
  --url URL              the service (default: $PAYGATE_URL, else http://localhost:3000)
  --forward-to URL       listen: where to POST each event
  --events a,b           listen: only these types (e.g. payment.succeeded,payment.failed)
  --secret whsec_…       listen: sign with this secret (default: one derived from the API key,
                         the same on every run with that key)
  --interval-ms N        listen: pause between two reads of the events (default 1000)
  -h, --help             this text`

const parsed = parseCommandLine({
  // Refused with its own message (a key in argv is readable by every user): see below.
  "api-key": { type: "string" },
  url: { type: "string" },
  "forward-to": { type: "string" },
  events: { type: "string" },
  secret: { type: "string" },
  "interval-ms": { type: "string" },
  help: { type: "boolean", short: "h" }
}, "npm run webhooks -- --help")
const { values, positionals } = parsed
if (values.help === true) {
  console.log(usage)
  process.exit(0)
}

const validUrl = (name: string, text: string) => {
  try {
    const url = new URL(text)
    if (url.protocol === "http:" || url.protocol === "https:") return url.href.replace(/\/$/, "")
  } catch {
    // said below
  }
  return fail(`${name} ${JSON.stringify(text)} is not an http(s) URL`, 2)
}

const [command, ...rest] = positionals
if (command !== "listen" && command !== "test") {
  fail(command === undefined ? `Missing the command: listen or test\n\n${usage}` : `Unknown command ${JSON.stringify(command)}: listen or test (--help)`, 2)
}
if (values["api-key"] !== undefined) {
  fail("--api-key is refused: a key on the command line is visible to every user of this machine (ps); set PAYGATE_API_KEY or type the key when asked", 2)
}
const apiKey = process.env.PAYGATE_API_KEY?.trim() || (await askSecret("Partner secret key (sk_…, not shown): "))?.trim() ||
  fail("Missing the partner's API key: set PAYGATE_API_KEY (or run in a terminal to be asked for it)", 2)
const baseUrl = validUrl("--url", values.url ?? process.env.PAYGATE_URL ?? "http://localhost:3000")
const paygate = createPaygateClient({ baseUrl, apiKey })

/** One line for a failed call: the contract error, or why the service could not be reached. */
const explain = (error: unknown): string => {
  if (error instanceof PaygateError) return `${error.status} ${error.code}: ${error.message}`
  const cause = (error as { cause?: { cause?: { code?: string }; code?: string } }).cause
  const code = cause?.code ?? cause?.cause?.code
  return `cannot reach ${baseUrl}${code === undefined ? "" : ` (${code})`}: is the service running? (--url)`
}

const time = () => new Date().toISOString().slice(11, 19)

if (command === "test") {
  const [endpointId, ...extra] = rest
  if (endpointId === undefined) fail("Missing the endpoint id: npm run webhooks -- test <whe_…>", 2)
  if (extra.length > 0) fail(`Unexpected argument ${JSON.stringify(extra[0])} (--help)`, 2)
  const result = await paygate.webhooks.test({ params: { id: endpointId! } }).catch((error: unknown) => fail(explain(error)))
  console.log(JSON.stringify(result))
  if (!result.delivered) fail(`${endpointId} did not accept the test event: ${result.error ?? `HTTP ${result.statusCode}`}`)
  process.exit(0)
}

// listen
if (rest.length > 0) fail(`Unexpected argument ${JSON.stringify(rest[0])} (--help)`, 2)
const forwardTo = validUrl("--forward-to", values["forward-to"] ?? fail("Missing --forward-to <url>: where to send the events", 2))
const types = values.events === undefined ? undefined : new Set(values.events.split(",").map((t) => t.trim()).filter((t) => t !== ""))
const unknownType = [...(types ?? [])].find((type) => !(PaymentEventType.literals as ReadonlyArray<string>).includes(type))
if (unknownType !== undefined) fail(`--events: ${JSON.stringify(unknownType)} is not an event type (${PaymentEventType.literals.join(", ")})`, 2)
const intervalMs = Number(values["interval-ms"] ?? "1000")
if (!Number.isInteger(intervalMs) || intervalMs < 100) fail("--interval-ms must be an integer of at least 100", 2)
// Stable per key, like a registered endpoint's: the receiver's configuration survives restarts.
const secret = values.secret ?? `whsec_${createHmac("sha256", apiKey).update("paygate webhooks listen").digest("base64")}`
if (!/^whsec_[A-Za-z0-9+/]+=*$/.test(secret)) fail("--secret must be whsec_ followed by base64", 2)

type Event = Awaited<ReturnType<typeof paygate.webhooks.events>>["data"][number]

/** The newest events, oldest first, back to the first one already seen (at most 10 pages). */
const seen = new Set<string>()
const newEvents = async (): Promise<Array<Event>> => {
  const found: Array<Event> = []
  let cursor: string | undefined
  for (let page = 0; page < 10; page++) {
    const { data, nextCursor } = await paygate.webhooks.events({ query: { limit: "100", ...(cursor === undefined ? {} : { cursor }) } })
    const unseen = data.filter((event) => !seen.has(event.id))
    found.push(...unseen)
    // A page holding a seen event reaches back far enough (one page is read whole: events are
    // ordered by their time, which may not be the order they were committed in).
    if (unseen.length < data.length || nextCursor === null) break
    cursor = nextCursor
  }
  return found.reverse()
}

const forward = async (event: Event) => {
  const body = JSON.stringify(event)
  const headers = await signWebhook(secret, event.id, Math.floor(Date.now() / 1000), body)
  const started = performance.now()
  const label = `${time()}  ${event.type.padEnd(18)} ${event.id}  ${event.data.payment.paymentId}`
  try {
    const response = await fetch(forwardTo, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "paygate-webhooks-listen/1" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(15_000)
    })
    await response.body?.cancel()
    console.log(`${label}  → ${response.status} (${Math.round(performance.now() - started)} ms)`)
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    console.log(`${label}  → not delivered: ${cause}`)
  }
}

// The events before this start are not forwarded (redeliver one with POST /v1/events/{id}/redeliver
// to an endpoint, or start listening before causing it).
for (const event of await newEvents().catch((error: unknown) => fail(explain(error)))) seen.add(event.id)
console.log(`Ready: forwarding ${types === undefined ? "every event" : [...types].join(", ")} of this key's partner to ${forwardTo}`)
console.log(`Webhook signing secret: ${secret}`)
console.log("(Ctrl-C to stop)")
process.on("SIGINT", () => process.exit(0))
process.on("SIGTERM", () => process.exit(0))

let unreachable = false
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
  let events: Array<Event>
  try {
    events = await newEvents()
    if (unreachable) console.log(`${time()}  reading events again`)
    unreachable = false
  } catch (error) {
    if (error instanceof PaygateError) fail(explain(error))
    if (!unreachable) console.log(`${time()}  ${explain(error)}; retrying`)
    unreachable = true
    continue
  }
  for (const event of events) {
    seen.add(event.id)
    if (types === undefined || types.has(event.type)) await forward(event)
  }
  // A read looks back 1,000 events at most: older ids need not be remembered.
  for (const id of seen) {
    if (seen.size <= 10_000) break
    seen.delete(id)
  }
}
