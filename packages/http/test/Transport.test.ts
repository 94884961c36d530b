import { Result } from "effect"
import { createServer, type Server } from "node:http"
import { connect, type Socket } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { forEachDatabase, useTestServer } from "../../../test/support/TestServer.ts"
import { parseTrustedProxies } from "../src/server/ClientAddress.ts"
import { harden, serverTimeouts, strictTransportSecurity } from "../src/server/Transport.ts"

// Opens a connection and answers whether the server keeps it (a request on it is answered) or closes it.
const answeredOn = (port: number) =>
  new Promise<{ readonly socket: Socket; readonly answered: boolean }>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port })
    let data = ""
    socket.on("data", (chunk) => {
      data += chunk.toString()
      if (data.includes("\r\n\r\n")) resolve({ socket, answered: true })
    })
    socket.on("close", () => resolve({ socket, answered: false }))
    socket.on("error", () => resolve({ socket, answered: false }))
    socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
  })

describe("Transport: the Node server's limits", () => {
  const servers: Array<Server> = []
  const sockets: Array<Socket> = []
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy()
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  })

  const start = async (trusted: string, maxConnectionsPerClient: number) => {
    const server = createServer()
    harden(server, { trusted: Result.getOrThrow(parseTrustedProxies(trusted)), maxConnectionsPerClient })
    server.on("request", (_request, response) => response.end("ok"))
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return (server.address() as { port: number }).port
  }

  it("sets explicit header, request and keep-alive timeouts", async () => {
    const server = createServer()
    harden(server, { trusted: () => false, maxConnectionsPerClient: 1 })
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([
      serverTimeouts.headersMs,
      serverTimeouts.requestMs,
      serverTimeouts.keepAliveMs
    ])
  })

  it("closes a client's connections over MAX_CONNECTIONS_PER_CLIENT at once, and takes new ones as old ones close", async () => {
    const port = await start("", 3)
    const open = []
    for (let n = 0; n < 3; n++) open.push(await answeredOn(port))
    sockets.push(...open.map((o) => o.socket))
    expect(open.map((o) => o.answered)).toEqual([true, true, true])
    const fourth = await answeredOn(port)
    sockets.push(fourth.socket)
    expect(fourth.answered).toBe(false)
    open[0]!.socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const again = await answeredOn(port)
    sockets.push(again.socket)
    expect(again.answered).toBe(true)
  })

  it("holds no trusted proxy to the cap: every client behind it shares its address", async () => {
    const port = await start("127.0.0.1", 2)
    const open = []
    for (let n = 0; n < 5; n++) open.push(await answeredOn(port))
    sockets.push(...open.map((o) => o.socket))
    expect(open.map((o) => o.answered)).toEqual([true, true, true, true, true])
  })
})

forEachDatabase("Transport: the API process", (database) => {
  const server = useTestServer(database)

  it("sends Strict-Transport-Security only on answers to requests that came over TLS (a trusted proxy's X-Forwarded-Proto)", async () => {
    const behindProxy = await server.listen({ TRUSTED_PROXIES: "127.0.0.1" })
    const direct = await server.listen({})
    try {
      for (const path of ["/dashboard", "/v1/payments", "/healthz", "/no-such-route"]) {
        const tls = await fetch(`${behindProxy.url}${path}`, { headers: { "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.7" } })
        expect(tls.headers.get("strict-transport-security"), path).toBe(strictTransportSecurity)
        const plain = await fetch(`${behindProxy.url}${path}`, { headers: { "x-forwarded-proto": "http" } })
        expect(plain.headers.get("strict-transport-security"), path).toBeNull()
        // From a peer that is no trusted proxy the header is the client's own claim.
        const claimed = await fetch(`${direct.url}${path}`, { headers: { "x-forwarded-proto": "https" } })
        expect(claimed.headers.get("strict-transport-security"), path).toBeNull()
      }
    } finally {
      await behindProxy.close()
      await direct.close()
    }
  })
})
