import { request } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { createServer } from "../src/server/EarlyRequests.ts"

const get = (port: number) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/readyz" }, (res) => {
      let body = ""
      res.on("data", (chunk) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

// Not the shared test server: the bare Node server of start-up, before any app (routes, database) is attached.
describe("requests during start-up", () => {
  it("a request that arrives before the app's handler is attached is answered by it once attached", async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    try {
      const early = get(port)
      // Still starting: nothing answers yet.
      await new Promise((resolve) => setTimeout(resolve, 100))
      server.on("request", (_req, res) => res.end("ready"))
      expect(await early).toEqual({ status: 200, body: "ready" })
      // Later requests go straight to the handler, answered once.
      expect(await get(port)).toEqual({ status: 200, body: "ready" })
    } finally {
      server.close()
    }
  })
})
