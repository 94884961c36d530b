/**
 * A local webhook receiver for tests: an HTTP server on 127.0.0.1 that verifies every request
 * with the `standardwebhooks` library (the secret registered for its path) and answers as told.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"

/** One request as received. */
export interface Received {
  readonly path: string
  readonly webhookId: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The parsed body, when the signature verified. */
  readonly envelope: any
  readonly verified: boolean
  readonly at: number
}

/** How to answer the `n`-th request (from 0) on a path. */
export type Behavior = (n: number, received: Received) => {
  readonly status: number
  readonly delayMs?: number
  readonly headers?: Record<string, string>
  /** The response's body (default none). */
  readonly body?: string | Uint8Array
}

export interface Receiver {
  readonly port: number
  /** The URL of a path on this receiver. */
  readonly url: (path: string) => string
  /** Registers the signing secret that requests to `path` must carry. */
  readonly expect: (path: string, secret: string) => void
  readonly behave: (path: string, behavior: Behavior) => void
  readonly received: Array<Received>
  /** Requests to `path`. */
  readonly on: (path: string) => Array<Received>
  /** The most requests to `path` that were awaiting their response at the same time. */
  readonly maxInFlight: (path: string) => number
  /** Resolves when `predicate` holds, polling; rejects after `timeoutMs`. */
  readonly waitFor: (predicate: () => boolean, timeoutMs?: number, what?: string) => Promise<void>
  readonly close: () => Promise<void>
}

export const startReceiver = async (): Promise<Receiver> => {
  const secrets = new Map<string, Webhook>()
  const behaviors = new Map<string, Behavior>()
  const counts = new Map<string, number>()
  const received: Array<Received> = []
  const open = new Map<string, number>()
  const peak = new Map<string, number>()

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!
      const body = Buffer.concat(chunks).toString("utf8")
      let envelope: unknown = undefined
      let verified = false
      const verifier = secrets.get(path)
      if (verifier !== undefined) {
        try {
          envelope = verifier.verify(body, req.headers as Record<string, string>)
          verified = true
        } catch {
          verified = false
        }
      }
      const entry: Received = {
        path,
        webhookId: String(req.headers["webhook-id"] ?? ""),
        headers: req.headers,
        body,
        envelope,
        verified,
        at: Date.now()
      }
      received.push(entry)
      const n = counts.get(path) ?? 0
      counts.set(path, n + 1)
      open.set(path, (open.get(path) ?? 0) + 1)
      peak.set(path, Math.max(peak.get(path) ?? 0, open.get(path)!))
      const answer: ReturnType<Behavior> = (behaviors.get(path) ?? ((): ReturnType<Behavior> => ({ status: 200 })))(n, entry)
      const send = () => {
        open.set(path, open.get(path)! - 1)
        if (res.destroyed) return
        res.writeHead(answer.status, answer.headers ?? {}).end(answer.body)
      }
      if (answer.delayMs !== undefined && answer.delayMs > 0) setTimeout(send, answer.delayMs)
      else send()
    })
  }

  const server: Server = createServer({ keepAliveTimeout: 10_000 }, handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    expect: (path, secret) => void secrets.set(path, new Webhook(secret)),
    behave: (path, behavior) => void behaviors.set(path, behavior),
    received,
    on: (path) => received.filter((r) => r.path === path),
    maxInFlight: (path) => peak.get(path) ?? 0,
    waitFor: async (predicate, timeoutMs = 15_000, what = "condition") => {
      const deadline = Date.now() + timeoutMs
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
