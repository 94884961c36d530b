import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPayment, npm, type StartedService, startService } from "./support/NpmStart.ts"
import { repoRoot } from "./support/ServiceProcess.ts"

// Webhooks on a developer's machine: registering http://127.0.0.1:… was refused
// with no hint, and nothing forwarded events to a local URL. Here the real commands run against
// `npm start`, and a local receiver checks every signature with the published `standardwebhooks`.

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

const startReceiver = async () => {
  const received: Array<Received> = []
  const server: Server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body })
      // /flaky refuses its first two requests, as a receiver being edited does.
      const flakyRefusal = request.url === "/flaky" && received.filter((r) => r.path === "/flaky").length <= 2
      response.writeHead(request.url === "/broken" || flakyRefusal ? 500 : 204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return { received, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const waitFor = async <A>(what: string, probe: () => A | undefined, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A running `npm run listen -- …`, its output kept. */
const listen = (args: ReadonlyArray<string>, apiKey: string) => {
  const child: ChildProcess = spawn("npm", ["run", "listen", "--", ...args], {
    cwd: repoRoot,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PAYGATE_API_KEY: apiKey }
  })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM")
      await exited
    }
  }
}

describe("webhooks against a service with the SSRF guard closed (a remote one)", () => {
  let service: StartedService
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  const listeners: Array<ReturnType<typeof listen>> = []

  beforeAll(async () => {
    service = await startService()
    receiver = await startReceiver()
  }, 300_000)

  afterAll(async () => {
    for (const listener of listeners) await listener.stop()
    await receiver?.close()
    await service?.stop()
  })

  it("refuses a loopback endpoint for a sandbox key, saying how to receive events locally", async () => {
    const refused = await service.partner("POST", "/v1/webhooks", { url: `${receiver.url}/hook` })
    expect(refused.status).toBe(400)
    expect(refused.json.code).toBe("params_validation")
    expect(refused.json.message).toMatch(/^url must not point to a loopback address\./)
    expect(refused.json.message).toContain("npm run webhooks -- listen --forward-to <url>")
    expect(refused.json.message).toContain("WEBHOOK_ALLOW_PRIVATE=true")
  })

  it("npm run listen forwards the partner's new events to a local URL, signed with the secret it prints", async () => {
    const before = await createPayment(service, "1050", "before-listen")
    const common = ["--url", service.url, "--interval-ms", "200"]
    const all = listen(["--forward-to", `${receiver.url}/all`, ...common], service.apiKey)
    const succeededOnly = listen(["--forward-to", `${receiver.url}/succeeded`, "--events", "payment.succeeded", ...common], service.apiKey)
    listeners.push(all, succeededOnly)
    const secret = await waitFor("the signing secret", () => /Webhook signing secret: (whsec_\S+)/.exec(all.output())?.[1])
    await waitFor("the second listener", () => (succeededOnly.output().includes("Ready:") ? true : undefined))
    expect(all.output()).toContain(`Ready: forwarding every event of this key's partner to ${receiver.url}/all`)

    const paymentId = await createPayment(service, "1050", "while-listening")
    const paid = await npm(["run", "pay", "--", paymentId, "--app-id", service.appId, "--url", service.url])
    expect(paid.code).toBe(0)

    const hook = new Webhook(secret)
    const types = await waitFor("three forwarded events", () => {
      const events = receiver.received.filter((r) => r.path === "/all").map((r) => hook.verify(r.body, r.headers as Record<string, string>) as any)
      const types = events.filter((e) => e.data.payment.paymentId === paymentId).map((e) => e.type)
      return types.length >= 3 ? types : undefined
    })
    expect(types).toEqual(["payment.created", "payment.processing", "payment.succeeded"])
    // Events from before the listener started are not forwarded.
    expect(receiver.received.some((r) => r.body.includes(before))).toBe(false)
    // Each one printed as it arrived, with the receiver's response (printed once the response is in: wait for it).
    const printed = new RegExp(`payment\\.succeeded\\s+evt_\\w+  ${paymentId}  → 204 \\(\\d+ ms\\)`)
    await waitFor("the printed line of payment.succeeded", () => (printed.test(all.output()) ? true : undefined))

    const filtered = await waitFor("the filtered listener's event", () => {
      const hits = receiver.received.filter((r) => r.path === "/succeeded")
      return hits.length > 0 ? hits : undefined
    })
    expect(filtered.map((r) => (hook.verify(r.body, r.headers as Record<string, string>) as any).type)).toEqual(["payment.succeeded"])
  }, 90_000)

  it("npm run listen retries a forward the receiver refused, until it accepts it", async () => {
    const flaky = listen(["--forward-to", `${receiver.url}/flaky`, "--url", service.url, "--interval-ms", "200"], service.apiKey)
    listeners.push(flaky)
    await waitFor("the flaky listener", () => (flaky.output().includes("Ready:") ? true : undefined))
    const paymentId = await createPayment(service, "1050", "flaky-receiver")
    const created = await waitFor("three attempts at payment.created", () => {
      const hits = receiver.received.filter((r) => r.path === "/flaky" && r.body.includes(paymentId))
      return hits.length >= 3 ? hits : undefined
    })
    // The same event each time, signed anew; the receiver's third answer (204) ends it.
    expect(new Set(created.map((r) => JSON.parse(r.body).id)).size).toBe(1)
    expect(created.map((r) => r.headers["webhook-id"])).toEqual(Array(3).fill(JSON.parse(created[0]!.body).id))
    await waitFor("the accepted attempt's line", () => (/\(attempt 3\)  → 204/.test(flaky.output()) ? true : undefined))
    expect(flaky.output()).toMatch(new RegExp(`payment\\.created\\s+evt_\\w+  ${paymentId}  → 500 \\(\\d+ ms\\); retrying in 1 s`))
    expect(flaky.output()).toMatch(/\(attempt 2\)  → 500 \(\d+ ms\); retrying in 2 s/)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(receiver.received.filter((r) => r.path === "/flaky" && r.body.includes(paymentId))).toHaveLength(3)
  }, 60_000)

  it("npm run listen without --forward-to prints each event itself", async () => {
    const printer = listen(["--url", service.url, "--interval-ms", "200", "--events", "payment.created"], service.apiKey)
    listeners.push(printer)
    await waitFor("the printing listener", () => (printer.output().includes("Ready:") ? true : undefined))
    expect(printer.output()).toContain("Ready: printing payment.created of this key's partner (--forward-to <url> to send them to a receiver)")
    expect(printer.output()).not.toContain("Webhook signing secret")
    const paymentId = await createPayment(service, "1050", "printed")
    const json = await waitFor("the printed event", () => printer.output().split("\n").find((line) => line.startsWith("{") && line.includes(paymentId)))
    expect(JSON.parse(json)).toMatchObject({ type: "payment.created", data: { payment: { paymentId } } })
    expect(printer.output()).toMatch(new RegExp(`payment\\.created\\s+evt_\\w+  ${paymentId}\\n\\{`))
  }, 60_000)

  it("says in one line what is wrong with its arguments or credentials", async () => {
    const help = await npm(["run", "webhooks", "--", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("npm run webhooks -- listen [--forward-to <url>] [options]")
    expect(help.stdout).toContain("npm run webhooks -- trigger <type> [options]")
    const cases: Array<[Array<string>, string, string]> = [
      [["run", "webhooks", "--", "send"], service.apiKey, "Unknown command \"send\""],
      [["run", "webhooks", "--", "trigger"], service.apiKey, "Missing the event type"],
      [["run", "webhooks", "--", "trigger", "payment.paid"], service.apiKey, "\"payment.paid\" is not an event type that can be triggered"],
      [["run", "webhooks", "--", "trigger", "payment.expired"], service.apiKey, "payment.expired cannot be triggered: a payment expires when its lifetime"],
      // Real payments: never with a live key, whatever else is given.
      [["run", "webhooks", "--", "trigger", "payment.created", "--url", service.url], "sk_live_someone", "it takes a sandbox key (sk_test_…) only"],
      [["run", "webhooks", "--", "trigger", "payment.succeeded", "--url", service.url], service.apiKey, "payment.succeeded pays a payment: give a wallet app's --app-id"],
      [["run", "listen", "--", "--forward-to", "nowhere"], "k", "--forward-to \"nowhere\" is not an http(s) URL"],
      [["run", "listen", "--", "--forward-to", `${receiver.url}/x`, "--events", "payment.succeded"], "k", "--events: \"payment.succeded\" is not an event type"],
      [["run", "listen", "--", "--forward-to", `${receiver.url}/x`, "--url", service.url], "sk_test_nobody", "401 invalid_api_key"],
      [["run", "webhooks", "--", "test", "whe_nobody", "--url", service.url], service.apiKey, "404 partner_not_found: No webhook endpoint whe_nobody."],
      [["run", "webhooks", "--", "test", "whe_x", "--url", "http://127.0.0.1:9"], service.apiKey, "cannot reach http://127.0.0.1:9"],
      // A key on the command line is readable by every user of the machine (ps): refused, whatever else is given.
      [["run", "listen", "--", "--forward-to", `${receiver.url}/x`, "--api-key", service.apiKey, "--url", service.url], service.apiKey, "--api-key is refused"],
      [["run", "webhooks", "--", "test", "whe_x", "--api-key", service.apiKey], "", "--api-key is refused"],
      // No key in the environment and no terminal to ask on (stdin is not one here).
      [["run", "listen", "--", "--forward-to", `${receiver.url}/x`, "--url", service.url], "", "Missing the partner's API key: set PAYGATE_API_KEY"]
    ]
    for (const [args, apiKey, message] of cases) {
      const result = await npm(args, { PAYGATE_API_KEY: apiKey })
      expect(result.code, args.join(" ")).not.toBe(0)
      const lines = result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith(">") && !line.startsWith("npm warn"))
      expect(lines, args.join(" ")).toHaveLength(1)
      expect(lines[0], args.join(" ")).toContain(message)
    }
  }, 180_000)
})

describe("a test event for an endpoint (WEBHOOK_ALLOW_PRIVATE=true, a local service)", () => {
  let service: StartedService
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    service = await startService({ WEBHOOK_ALLOW_PRIVATE: "true" })
    receiver = await startReceiver()
  }, 300_000)

  afterAll(async () => {
    await receiver?.close()
    await service?.stop()
  })

  it("POST /v1/webhooks/{id}/test and npm run webhooks -- test send a signed webhook.test event and report the answer", async () => {
    const endpoint = (await service.partner("POST", "/v1/webhooks", { url: `${receiver.url}/hook` })).json
    const answered = await service.partner("POST", `/v1/webhooks/${endpoint.id}/test`)
    expect(answered.status).toBe(200)
    expect(answered.json).toMatchObject({ endpointId: endpoint.id, delivered: true, statusCode: 204, error: null })
    const first = receiver.received.at(-1)!
    const event = new Webhook(endpoint.secret).verify(first.body, first.headers as Record<string, string>) as any
    expect(event).toMatchObject({ id: answered.json.eventId, type: "webhook.test", data: { endpointId: endpoint.id } })
    expect(first.headers["webhook-id"]).toBe(answered.json.eventId)

    const viaCli = await npm(["run", "-s", "webhooks", "--", "test", endpoint.id, "--url", service.url], { PAYGATE_API_KEY: service.apiKey })
    expect(viaCli.code).toBe(0)
    expect(JSON.parse(viaCli.stdout)).toMatchObject({ endpointId: endpoint.id, delivered: true, statusCode: 204 })
    expect(receiver.received).toHaveLength(2)

    // A receiver that fails: reported, exit 1, nothing retried.
    const broken = (await service.partner("POST", "/v1/webhooks", { url: `${receiver.url}/broken` })).json
    const failed = await npm(["run", "-s", "webhooks", "--", "test", broken.id], { PAYGATE_API_KEY: service.apiKey, PAYGATE_URL: service.url })
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout.split("\n")[0]!)).toMatchObject({ delivered: false, statusCode: 500, error: "HTTP 500" })
    expect(failed.stderr).toContain(`${broken.id} did not accept the test event: HTTP 500`)
  }, 60_000)

  it("npm run webhooks -- trigger <type> makes the sandbox send a real event of that type to the registered endpoints", async () => {
    const endpoint = (await service.partner("POST", "/v1/webhooks", { url: `${receiver.url}/triggered` })).json
    const hook = new Webhook(endpoint.secret)
    const rpcUrl = /Local chain eip155:31337 at (http:\/\/[\d.]+:\d+)/.exec(service.output())![1]!
    const trigger = (type: string, ...args: Array<string>) =>
      npm(["run", "-s", "webhooks", "--", "trigger", type, "--url", service.url, ...args], { PAYGATE_API_KEY: service.apiKey })
    const delivered = (type: string) =>
      waitFor(`a delivered ${type}`, () => {
        const events = receiver.received.filter((r) => r.path === "/triggered").map((r) => hook.verify(r.body, r.headers as Record<string, string>) as any)
        return events.find((event) => event.type === type)
      }, 60_000)

    for (const [type, args] of [
      ["payment.cancelled", []],
      ["payment.succeeded", ["--app-id", service.appId, "--rpc-url", rpcUrl]],
      ["payment.transfer_received", ["--app-id", service.appId, "--rpc-url", rpcUrl]]
    ] as const) {
      const result = await trigger(type, ...args)
      expect(result.stderr, type).toBe("")
      expect(result.code, type).toBe(0)
      const eventId = new RegExp(`${type.replace(".", "\\.")} emitted: (evt_\\w+)`).exec(result.stdout)?.[1]
      expect(eventId, result.stdout).toBeDefined()
      const event = await delivered(type)
      expect(event.id).toBe(eventId)
      // A payment of the key's own partner and merchant, created for it.
      const payment = (await service.partner("GET", `/v1/payments/${event.data.payment.paymentId}`)).json
      expect(payment.merchantId).toBe(service.merchantId)
      expect(payment.referenceId).toMatch(new RegExp(`^trigger-${type.replace(".", "\\.")}-\\d+$`))
    }
  }, 180_000)
})
