/**
 * The webhook receiver of the drain bench: `node:http` on 127.0.0.1 that reads each request,
 * responds 200 (at once, or after a delay on a port opened to be slow) and notes when each
 * `webhook-id` first arrived (no signature check: the receiver's cost is the same for every
 * system measured). More ports can be opened, each a host of its own to the systems measured
 * (their connection pools are per host), all counted together.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface CountingReceiver {
  readonly url: (path: string) => string
  /**
   * Opens another port with the same counting; `respondAfterMs` (drawn per request) delays each
   * response. Answers the URL maker of that port.
   */
  readonly listen: (respondAfterMs?: () => number) => Promise<(path: string) => string>
  /** Starts counting arrivals of `ids` (forgetting earlier ones); `onFirst` runs on the first of them. */
  readonly expect: (ids: Iterable<string>, onFirst?: () => void) => void
  /** Expects one more id. */
  readonly add: (id: string) => void
  /** First arrival (Unix ms, sub-millisecond) of each expected id received so far. */
  readonly arrivals: ReadonlyMap<string, number>
  /** Requests received so far, expected or not, repeats included. */
  readonly requests: () => number
  /** Requests for an expected id that had already arrived, since `expect`. */
  readonly repeats: () => number
  /** Resolves once every expected id arrived; rejects after `timeoutMs`. */
  readonly done: (timeoutMs: number) => Promise<void>
  readonly close: () => Promise<void>
}

const nowMs = () => performance.timeOrigin + performance.now()

export const startCountingReceiver = async (): Promise<CountingReceiver> => {
  let expected = new Set<string>()
  const arrivals = new Map<string, number>()
  let requests = 0
  let repeats = 0
  let onFirst: (() => void) | undefined
  let waiter: (() => void) | undefined
  const servers: Array<Server> = []

  const open = async (respondAfterMs?: () => number) => {
    const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
      request.resume()
      request.on("end", () => {
        requests++
        const id = String(request.headers["webhook-id"] ?? "")
        if (expected.has(id) && arrivals.has(id)) repeats++
        else if (expected.has(id)) {
          if (arrivals.size === 0) onFirst?.()
          arrivals.set(id, nowMs())
          if (arrivals.size === expected.size) waiter?.()
        }
        const respond = () => {
          if (!response.destroyed) response.writeHead(200, { "content-length": "0" }).end()
        }
        if (respondAfterMs === undefined) respond()
        else setTimeout(respond, respondAfterMs())
      })
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    return (path: string) => `http://127.0.0.1:${port}${path}`
  }
  const url = await open()

  return {
    url,
    listen: open,
    expect: (ids, first) => {
      expected = new Set(ids)
      arrivals.clear()
      repeats = 0
      onFirst = first
    },
    add: (id) => void expected.add(id),
    arrivals,
    requests: () => requests,
    repeats: () => repeats,
    done: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (arrivals.size === expected.size) return resolve()
        const timer = setTimeout(() => reject(new Error(`${arrivals.size} of ${expected.size} webhooks arrived in ${timeoutMs} ms`)), timeoutMs)
        waiter = () => {
          clearTimeout(timer)
          waiter = undefined
          resolve()
        }
      }),
    close: async () => {
      for (const server of servers) server.closeAllConnections()
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
    }
  }
}
