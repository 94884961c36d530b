/**
 * `npm run webhooks -- listen [--forward-to <url>]` (also `npm run listen -- …`),
 * `npm run webhooks -- test <endpointId>` and `npm run webhooks -- trigger <type>`; `--help` lists
 * the options.
 *
 * `listen` receives a partner's webhooks on a developer's machine without registering a private
 * address: it reads the partner's events through the API (`GET /v1/events`, so it works against a
 * remote service too and the SSRF guard stays closed), signs each like a delivery (Standard
 * Webhooks) with a secret it prints, forwards it to the local URL and prints what the receiver
 * answered; a refused forward (a response other than 2xx, or no response) is retried like a real
 * delivery. Without `--forward-to` it prints each event itself. `test` asks the service to send a
 * signed `webhook.test` event to a registered endpoint (`POST /v1/webhooks/{id}/test`) and prints
 * the receiver's response. `trigger` makes the sandbox emit an event of a type (see Trigger.ts).
 */
import { createHmac } from "node:crypto"
import { askSecret, fail, parseCommandLine } from "./CommandLine.ts"
import { trigger, type TriggerType, triggerTypes, untriggerable } from "./Trigger.ts"

/** Attempts of one forward `listen` makes before it gives up on it. */
const maxAttempts = 8

const usage = `Usage:
  npm run webhooks -- listen [--forward-to <url>] [options]   (or: npm run listen -- …)
  npm run webhooks -- test <endpointId> [options]
  npm run webhooks -- trigger <type> [options]

listen: forwards the partner's new events (of the API key's mode) to a local URL as they happen,
signed like real deliveries with the secret it prints; prints each one and the receiver's answer.
A forward the receiver refuses (not 2xx, or no answer) is retried after 1, 2, 4… s (at most 30 s
apart, ${maxAttempts} attempts in all). Without --forward-to, prints each event's JSON instead.
test: the service sends a signed webhook.test event to a registered endpoint and reports the answer.
trigger: makes the sandbox emit an event of <type> for real (a sandbox key only): it creates a
payment of the key's partner and takes it where that event happens, so every registered endpoint
and every listener gets it. Types: ${triggerTypes.join(", ")}.

The partner's secret key is read from $PAYGATE_API_KEY, else asked for on the terminal; never
from the command line, where every user of the machine could read it (ps).

Options:
  --url URL              the service (default: $PAYGATE_URL, else http://localhost:3000)
  --forward-to URL       listen: where to POST each event (without it: print them)
  --events a,b           listen: only these types (e.g. payment.succeeded,payment.failed)
  --secret whsec_…       listen: sign with this secret (default: one derived from the API key,
                         the same on every run with that key)
  --interval-ms N        listen: pause between two reads of the events (default 1000)
  --merchant mer_…       trigger: the merchant of the payment (default: the partner's first)
  --app-id app_…         trigger: a wallet app's App-Id, to pay (payment.processing, .succeeded)
  --rpc-url URL          trigger: the local chain's RPC, to pay (default http://127.0.0.1:8545)
  -h, --help             this text`

const parsed = parseCommandLine({
  // Refused with its own message (a key in argv is readable by every user): see below.
  "api-key": { type: "string" },
  url: { type: "string" },
  "forward-to": { type: "string" },
  events: { type: "string" },
  secret: { type: "string" },
  "interval-ms": { type: "string" },
  merchant: { type: "string" },
  "app-id": { type: "string" },
  "rpc-url": { type: "string" },
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
if (command !== "listen" && command !== "test" && command !== "trigger") {
  fail(command === undefined ? `Missing the command: listen, test or trigger\n\n${usage}` : `Unknown command ${JSON.stringify(command)}: listen, test or trigger (--help)`, 2)
}
if (command === "trigger") {
  const [type, ...extra] = rest
  if (type === undefined) fail(`Missing the event type: npm run webhooks -- trigger <type> (${triggerTypes.join(", ")})`, 2)
  if (extra.length > 0) fail(`Unexpected argument ${JSON.stringify(extra[0])} (--help)`, 2)
  if (untriggerable[type!] !== undefined) fail(`${type} cannot be triggered: ${untriggerable[type!]}`, 2)
  if (!(triggerTypes as ReadonlyArray<string>).includes(type!)) fail(`${JSON.stringify(type)} is not an event type that can be triggered (${triggerTypes.join(", ")})`, 2)
}
if (values["api-key"] !== undefined) {
  fail("--api-key is refused: a key on the command line is visible to every user of this machine (ps); set PAYGATE_API_KEY or type the key when asked", 2)
}
const apiKey = process.env.PAYGATE_API_KEY?.trim() || (await askSecret("Partner secret key (sk_…, not shown): "))?.trim() ||
  fail("Missing the partner's API key: set PAYGATE_API_KEY (or run in a terminal to be asked for it)", 2)
const baseUrl = validUrl("--url", values.url ?? process.env.PAYGATE_URL ?? "http://localhost:3000")
// Loaded once the arguments are known to be good: a mistake is answered at once, not after a second of loading.
const { createPaygateClient, PaygateError, signWebhook } = await import("@paygate/http")
const { WebhookEventType } = await import("@paygate/domain")
const paygate = createPaygateClient({ baseUrl, apiKey })

/** One line for a failed call: the contract error, or why the service could not be reached. */
const explain = (error: unknown): string => {
  if (error instanceof PaygateError) return `${error.status} ${error.code}: ${error.message}`
  const cause = (error as { cause?: { cause?: { code?: string }; code?: string } }).cause
  const code = cause?.code ?? cause?.cause?.code
  return `cannot reach ${baseUrl}${code === undefined ? "" : ` (${code})`}: is the service running? (--url)`
}

const time = () => new Date().toISOString().slice(11, 19)

if (command === "trigger") {
  // Real payments, so never with a live key: the sandbox's only use test networks.
  if (!apiKey.startsWith("sk_test_")) fail("trigger creates and pays real payments: it takes a sandbox key (sk_test_…) only", 2)
  const rpcUrl = validUrl("--rpc-url", values["rpc-url"] ?? "http://127.0.0.1:8545")
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    let response: Response
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        // The gateway's calls identify a wallet app (App-Id), never the partner: one or the other.
        headers: { ...("app-id" in headers ? {} : { "api-key": apiKey }), "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
    } catch (error) {
      return fail(explain(error))
    }
    const json: any = await response.json().catch(() => ({}))
    if (!response.ok) return fail(`${method} ${path.split("?")[0]} → ${response.status} ${json.code}: ${json.message}`)
    return json
  }
  const type = rest[0] as TriggerType
  const input = { type, baseUrl, apiKey, merchantId: values.merchant, appId: values["app-id"], rpcUrl, say: (line: string) => console.log(`${time()}  ${line}`) }
  const result = await trigger(input, call)
  if ("problem" in result) fail(result.problem)
  console.log(`${time()}  ${type} emitted: ${(result as { eventId: string }).eventId} (sent to the partner's endpoints and listeners)`)
  process.exit(0)
}

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
const forwardTo = values["forward-to"] === undefined ? undefined : validUrl("--forward-to", values["forward-to"])
const types = values.events === undefined ? undefined : new Set(values.events.split(",").map((t) => t.trim()).filter((t) => t !== ""))
const unknownType = [...(types ?? [])].find((type) => !(WebhookEventType.literals as ReadonlyArray<string>).includes(type))
if (unknownType !== undefined) fail(`--events: ${JSON.stringify(unknownType)} is not an event type (${WebhookEventType.literals.join(", ")})`, 2)
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

// An event names what it is about: its payment, subscription or settlement destination.
const subjectOf = (data: Event["data"]) =>
  "payment" in data ? data.payment.paymentId : "subscription" in data ? data.subscription.id : data.settlementDestination.id

const labelOf = (event: Event) => `${time()}  ${event.type.padEnd(18)} ${event.id}  ${subjectOf(event.data)}`

/** Forwards made and refused, waiting for their next attempt. */
const retries = new Map<string, { readonly event: Event; readonly attempt: number; readonly dueAt: number }>()

// A refused forward is tried again like a gateway delivery (1, 2, 4… s apart, at most 30 s), so a
// receiver that was down or failed while being edited still gets the event; signed anew each time.
const forward = async (target: string, event: Event, attempt: number) => {
  const body = JSON.stringify(event)
  const headers = await signWebhook(secret, event.id, Math.floor(Date.now() / 1000), body)
  const started = performance.now()
  const label = `${labelOf(event)}${attempt > 1 ? ` (attempt ${attempt})` : ""}`
  let outcome: string
  let delivered = false
  try {
    const response = await fetch(target, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "paygate-webhooks-listen/1" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(15_000)
    })
    await response.body?.cancel()
    delivered = response.status >= 200 && response.status < 300
    outcome = `${response.status} (${Math.round(performance.now() - started)} ms)`
  } catch (error) {
    outcome = `not delivered: ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name}`
  }
  retries.delete(event.id)
  if (delivered) return console.log(`${label}  → ${outcome}`)
  if (attempt >= maxAttempts) return console.log(`${label}  → ${outcome}; gave up after ${attempt} attempts`)
  const delayMs = Math.min(1_000 * 2 ** (attempt - 1), 30_000)
  retries.set(event.id, { event, attempt: attempt + 1, dueAt: Date.now() + delayMs })
  console.log(`${label}  → ${outcome}; retrying in ${delayMs / 1000} s`)
}

/** Without a forward address: the event's line, then its JSON as a receiver would get it. */
const print = (event: Event) => console.log(`${labelOf(event)}\n${JSON.stringify(event)}`)

// The events before this start are not forwarded (redeliver one with POST /v1/events/{id}/redeliver
// to an endpoint, or start listening before causing it).
for (const event of await newEvents().catch((error: unknown) => fail(explain(error)))) seen.add(event.id)
const which = types === undefined ? "every event" : [...types].join(", ")
if (forwardTo === undefined) {
  console.log(`Ready: printing ${which} of this key's partner (--forward-to <url> to send them to a receiver)`)
} else {
  console.log(`Ready: forwarding ${which} of this key's partner to ${forwardTo}`)
  console.log(`Webhook signing secret: ${secret}`)
}
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
    if (types !== undefined && !types.has(event.type)) continue
    if (forwardTo === undefined) print(event)
    else await forward(forwardTo, event, 1)
  }
  if (forwardTo !== undefined) {
    const now = Date.now()
    for (const retry of [...retries.values()].filter((r) => r.dueAt <= now)) await forward(forwardTo, retry.event, retry.attempt)
  }
  // A read looks back 1,000 events at most: older ids need not be remembered.
  for (const id of seen) {
    if (seen.size <= 10_000) break
    seen.delete(id)
  }
}
