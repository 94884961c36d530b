/**
 * A plain HTTP client for load and fault tests (`node:http`, keep-alive): JSON requests answered
 * with status, headers and body, and connection failures (a killed server: reset, refused, hang up)
 * told apart from answers, so that a test can retry exactly those.
 */
import { Agent, type IncomingHttpHeaders, request as httpRequest } from "node:http"

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The parsed body, when it is JSON. */
  readonly body: any
}

/** The request never got a response: the connection failed (`code`: ECONNRESET, ECONNREFUSED, …). */
export class ConnectionFailure extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

export const isConnectionFailure = (error: unknown): error is ConnectionFailure => error instanceof ConnectionFailure

const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 1_000 })

export interface RequestOptions {
  readonly headers?: Record<string, string>
  readonly body?: unknown
  /** No response within this long is a `ConnectionFailure` ("timeout"); default 30 s. */
  readonly timeoutMs?: number
}

/** `method baseUrl+path` with a JSON body; rejects with `ConnectionFailure` when no response arrived. */
export const send = (baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body)
    const url = new URL(path, baseUrl)
    const req = httpRequest(
      url,
      {
        method,
        agent,
        headers: {
          ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }),
          ...options.headers
        }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("error", (error: NodeJS.ErrnoException) => reject(new ConnectionFailure(error.code ?? "aborted", error.message)))
        res.on("end", () => {
          if (!res.complete) return reject(new ConnectionFailure("aborted", "the response was cut off"))
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown = undefined
          try {
            body = text === "" ? undefined : JSON.parse(text)
          } catch {
            body = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body })
        })
      }
    )
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new ConnectionFailure("timeout", "no answer in time")))
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(error instanceof ConnectionFailure ? error : new ConnectionFailure(error.code ?? "error", error.message))
    )
    req.end(payload)
  })

/** Runs `task` over `items` with at most `concurrency` in flight. */
export const forEachLimited = async <T>(
  items: ReadonlyArray<T>,
  concurrency: number,
  task: (item: T, index: number) => Promise<void>
): Promise<void> => {
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      await task(items[index]!, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane))
}
