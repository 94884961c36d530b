import { WebhookAdapters } from "@paygate/adapters"
import type { WebhookRequest } from "@paygate/domain"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { type AddressInfo, createServer as createNetServer, type Server as NetServer } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const { sendWebhook } = WebhookAdapters.HttpWebhookTransport

interface Received {
  readonly path: string
  readonly host: string | undefined
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

let server: Server
let port: number
const received: Array<Received> = []
let hugeSent: { readonly chunks: number; readonly finished: boolean } | undefined

// Answers by path: /status/<code>, /slow (never in time), /redirect (302 to /status/200).
const handle = (req: IncomingMessage, res: ServerResponse) => {
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => {
    received.push({ path: req.url ?? "", host: req.headers.host, headers: req.headers, body })
    const url = req.url ?? ""
    if (url.startsWith("/status/")) {
      res.writeHead(Number(url.slice(8))).end("answer")
    } else if (url === "/redirect") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/status/200` }).end()
    } else if (url === "/slow") {
      setTimeout(() => res.writeHead(200).end(), 2_000)
    } else if (url === "/json") {
      res.writeHead(200, { "content-type": "application/json" }).end("{\"ok\":true}")
    } else if (url === "/huge") {
      // 64 MiB in 64 KiB writes, each after the last was taken: stops once the client hangs up.
      res.writeHead(500, { "content-type": "text/html" })
      const chunk = Buffer.alloc(65_536, "x")
      let sent = 0
      const more = () => {
        while (sent < 1024 && !res.destroyed) {
          sent++
          if (!res.write(chunk)) return void res.once("drain", more)
        }
        res.end()
      }
      res.on("close", () => (hugeSent = { chunks: sent, finished: res.writableFinished }))
      more()
    } else if (url === "/stalled-body") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("first part")
    } else res.writeHead(404).end()
  })
}

beforeAll(async () => {
  server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const request = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "evt_1" },
  body: "{\"hello\":\"world\"}",
  timeoutMs: 1_000,
  allowPrivateAddresses: true,
  maxResponseBytes: 2048,
  ...overrides
})

describe("sendWebhook", () => {
  it("POSTs the body with its headers and reports the status", async () => {
    const result = await sendWebhook(request(`http://127.0.0.1:${port}/status/204`))
    expect(result).toMatchObject({ _tag: "Responded", status: 204 })
    const last = received.at(-1)!
    expect(last.body).toBe("{\"hello\":\"world\"}")
    expect(last.headers["webhook-id"]).toBe("evt_1")
    expect(last.headers["content-length"]).toBe("17")
  })

  it("never follows a redirect: a 3xx is the answer", async () => {
    const before = received.length
    const result = await sendWebhook(request(`http://127.0.0.1:${port}/redirect`))
    expect(result).toMatchObject({ _tag: "Responded", status: 302 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received.slice(before).map((r) => r.path)).toEqual(["/redirect"])
  })

  it("answers the body's first maxResponseBytes bytes with the headers", async () => {
    const json = await sendWebhook(request(`http://127.0.0.1:${port}/json`, { maxResponseBytes: 2048 }))
    expect(json).toMatchObject({ _tag: "Responded", status: 200, truncated: false, headers: { "content-type": "application/json" } })
    expect(json._tag === "Responded" && Buffer.from(json.body).toString()).toBe("{\"ok\":true}")
    const none = await sendWebhook(request(`http://127.0.0.1:${port}/json`, { maxResponseBytes: 0 }))
    expect(none).toMatchObject({ _tag: "Responded", status: 200, body: new Uint8Array(), truncated: true })
  })

  it("reads no further than the limit of a huge body: cut, marked truncated, the connection dropped", async () => {
    const result = await sendWebhook(request(`http://127.0.0.1:${port}/huge`, { maxResponseBytes: 2048, timeoutMs: 5_000 }))
    expect(result).toMatchObject({ _tag: "Responded", status: 500, truncated: true })
    expect(result._tag === "Responded" && Buffer.from(result.body).toString()).toBe("x".repeat(2048))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(hugeSent?.finished).toBe(false)
    expect(hugeSent!.chunks).toBeLessThan(1024)
  })

  it("a body that does not arrive whole in time is the answer so far, marked truncated", async () => {
    const result = await sendWebhook(request(`http://127.0.0.1:${port}/stalled-body`, { maxResponseBytes: 2048, timeoutMs: 300 }))
    expect(result).toMatchObject({ _tag: "Responded", status: 200, truncated: true })
    expect(result._tag === "Responded" && Buffer.from(result.body).toString()).toBe("first part")
    expect(result.durationMs).toBeLessThan(290)
  })

  it("hostile raw answers: bytes that are not UTF-8 come back as they were read, a NUL in a header is a failed exchange", async () => {
    // A server answering these exact bytes to any request.
    const rawServer = async (head: string, body: Uint8Array) => {
      const raw = createNetServer((socket) => socket.once("data", () => socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]))))
      await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve))
      return raw
    }
    const body = new Uint8Array([0x00, 0xff, 0xfe, 0x21])
    const servers: Array<NetServer> = [
      await rawServer("HTTP/1.1 200 OK\r\nContent-Type: text/plain; x=\u00ff\r\nContent-Length: 4\r\n\r\n", body),
      await rawServer("HTTP/1.1 200 OK\r\nContent-Type: text/plain\u0000\r\nContent-Length: 4\r\n\r\n", body)
    ]
    const rawPorts = { plain: (servers[0]!.address() as AddressInfo).port, nul: (servers[1]!.address() as AddressInfo).port }
    try {
      const plain = await sendWebhook(request(`http://127.0.0.1:${rawPorts.plain}/`))
      expect(plain).toMatchObject({ _tag: "Responded", status: 200, truncated: false, headers: { "content-type": "text/plain; x=\u00ff" } })
      expect(plain._tag === "Responded" && [...plain.body]).toEqual([0x00, 0xff, 0xfe, 0x21])
      const nul = await sendWebhook(request(`http://127.0.0.1:${rawPorts.nul}/`))
      expect(nul).toMatchObject({ _tag: "Failed", message: expect.stringContaining("HPE_") })
    } finally {
      for (const raw of servers) raw.close()
    }
  })

  it("gives up after the time limit", async () => {
    const result = await sendWebhook(request(`http://127.0.0.1:${port}/slow`, { timeoutMs: 300 }))
    expect(result._tag).toBe("TimedOut")
    expect(result.durationMs).toBeGreaterThanOrEqual(290)
    expect(result.durationMs).toBeLessThan(1_500)
  })

  it("reports a refused connection as a failure", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const result = await sendWebhook(request(`http://127.0.0.1:${closedPort}/`))
    expect(result).toMatchObject({ _tag: "Failed", message: "connection failed: ECONNREFUSED" })
  })

  it.each([
    "http://127.0.0.1:1/x",
    "http://10.0.0.1/x",
    "http://169.254.169.254/latest/meta-data",
    "http://[::1]:1/x",
    "http://[::ffff:127.0.0.1]:1/x",
    "http://2130706433:1/x",
    "http://0x7f000001:1/x",
    "http://0177.0.0.1:1/x",
    "http://localhost:1/x"
  ])("refuses %s unless private addresses are allowed, sending nothing", async (url) => {
    const before = received.length
    const result = await sendWebhook(request(url, { allowPrivateAddresses: false }))
    expect(result._tag).toBe("Blocked")
    expect(received.length).toBe(before)
  })

  it("checks every address a name resolves to, and refuses when any is not public", async () => {
    const result = await sendWebhook(request(`http://mixed.test:${port}/status/200`, { allowPrivateAddresses: false }), {
      resolve: async () => ["93.184.216.34", "127.0.0.1"]
    })
    expect(result).toMatchObject({ _tag: "Blocked", address: "127.0.0.1" })
  })

  it("connects to the address it checked (DNS rebinding cannot move the connection), with the name as Host", async () => {
    let lookups = 0
    const result = await sendWebhook(request(`http://rebind.test:${port}/status/200`), {
      // The first response is the one checked and connected to; a rebinding resolver would answer
      // something else next time, but there is no next time.
      resolve: async () => (lookups++ === 0 ? ["127.0.0.1"] : ["10.9.9.9"])
    })
    expect(result).toMatchObject({ _tag: "Responded", status: 200 })
    expect(lookups).toBe(1)
    expect(received.at(-1)!.host).toBe(`rebind.test:${port}`)
  })

  it("reports a name that does not resolve", async () => {
    const result = await sendWebhook(request("https://unresolvable.invalid/x"), {
      resolve: async () => {
        throw Object.assign(new Error("nope"), { code: "ENOTFOUND" })
      }
    })
    expect(result).toMatchObject({ _tag: "Failed", message: "cannot resolve unresolvable.invalid: ENOTFOUND" })
  })
})
