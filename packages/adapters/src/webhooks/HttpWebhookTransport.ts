/**
 * `WebhookTransport` on Node's `http`/`https`: one POST per attempt, redirects never followed
 * (a 3xx is just a response), the whole exchange bounded by the request's time limit.
 *
 * SSRF guard at delivery (API rules §6): the host is resolved here, once, with `dns.lookup`;
 * unless private addresses are allowed, any resolved address that is not public refuses the
 * delivery (nothing is sent); the connection then goes to exactly the address that was checked
 * (the `lookup` of the request is pinned to it), so a DNS answer that changes between the check
 * and the connection (DNS rebinding) cannot redirect it. TLS still verifies the certificate
 * against the host name (SNI and `Host` are the URL's).
 *
 * Connections are kept alive per host and pinned address; a kept socket only ever points to an
 * address that passed the guard when it was opened. A response's body is read up to the request's
 * `maxResponseBytes` and no further: a longer one drops its connection.
 *
 * @module
 */
import { classifyAddress, isLocalHostName, parseIpAddress, type SendResult, type WebhookRequest, WebhookTransport } from "@paygate/domain"
import { Effect, Layer } from "effect"
import type { LookupAddress } from "node:dns"
import { lookup } from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import { isIP } from "node:net"
import { performance } from "node:perf_hooks"

const agentOptions = { keepAlive: true, maxSockets: 32, maxFreeSockets: 32, scheduling: "lifo" as const, timeout: 30_000 }
const httpAgent = new http.Agent(agentOptions)
const httpsAgent = new https.Agent(agentOptions)

type PinnedLookup = (
  hostname: string,
  options: { readonly all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | ReadonlyArray<LookupAddress>, family?: number) => void
) => void

// A `lookup` that answers the checked address whatever is asked (Node asks with `all: true` when
// it may race address families; then it wants a list).
const pinnedLookup = (address: string): PinnedLookup => {
  const family = isIP(address) === 6 ? 6 : 4
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }])
    else callback(null, address, family)
  }
}

const errorText = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException
  return e.code !== undefined ? `connection failed: ${e.code}` : `connection failed: ${e.message ?? String(error)}`
}

/** Options of {@link sendWebhook}. */
export interface SendOptions {
  /** Aborts the exchange (the fiber was interrupted). */
  readonly signal?: AbortSignal | undefined
  /** Resolves a host name to its addresses; default `dns.lookup` (all addresses). Tests replace it. */
  readonly resolve?: ((host: string) => Promise<ReadonlyArray<string>>) | undefined
}

const systemResolve = async (host: string): Promise<ReadonlyArray<string>> =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

/** Sends one webhook (see the module comment). Never rejects: every outcome is a `SendResult`. */
export const sendWebhook = async (request: WebhookRequest, options: SendOptions = {}): Promise<SendResult> => {
  const { signal } = options
  const resolve = options.resolve ?? systemResolve
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    return { _tag: "Failed", message: "the endpoint URL is not valid", durationMs: 0 }
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { _tag: "Failed", message: "the endpoint URL is not HTTP(S)", durationMs: 0 }
  }
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  const deadline = started + request.timeoutMs

  // Resolve once (an IP literal is its own address).
  let addresses: ReadonlyArray<string>
  const literal = parseIpAddress(hostname)
  if (literal !== undefined) {
    addresses = [hostname]
  } else {
    try {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(Object.assign(new Error("lookup timed out"), { code: "ETIMEOUT" })), Math.max(1, deadline - performance.now())).unref()
      )
      addresses = await Promise.race([resolve(hostname), timeout])
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ETIMEOUT") return { _tag: "TimedOut", durationMs: elapsed() }
      return { _tag: "Failed", message: `cannot resolve ${hostname}: ${(error as NodeJS.ErrnoException).code ?? "lookup failed"}`, durationMs: elapsed() }
    }
  }
  if (addresses.length === 0) return { _tag: "Failed", message: `cannot resolve ${hostname}`, durationMs: elapsed() }
  if (!request.allowPrivateAddresses) {
    const blocked = isLocalHostName(hostname) ? addresses[0] : addresses.find((address) => classifyAddress(address) !== "public")
    if (blocked !== undefined) return { _tag: "Blocked", address: blocked, durationMs: elapsed() }
  }
  const pinned = addresses[0]!
  const body = Buffer.from(request.body, "utf8")
  const maxBody = Math.max(0, Math.floor(request.maxResponseBytes))

  return await new Promise<SendResult>((settle) => {
    let settled = false
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
      settle(result)
    }
    const client = url.protocol === "https:" ? https : http
    const req = client.request({
      protocol: url.protocol,
      hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...request.headers, "content-length": String(body.length) },
      agent: url.protocol === "https:" ? httpsAgent : httpAgent,
      // IP literals are connected to directly; names only ever to the checked address.
      ...(literal === undefined ? { lookup: pinnedLookup(pinned) as never } : {})
    })
    // Set once the response's headers came; the body is then read up to the request's limit.
    let responded: { readonly status: number; readonly durationMs: number; readonly headers: http.IncomingHttpHeaders } | undefined
    const chunks: Array<Buffer> = []
    const answer = (truncated: boolean) => {
      if (responded === undefined) return
      const body = Buffer.concat(chunks)
      // A copy: the last chunk may be far larger than what is kept.
      finish({ _tag: "Responded", ...responded, body: new Uint8Array(body.subarray(0, maxBody)), truncated: truncated || body.length > maxBody })
    }
    const timer = setTimeout(() => {
      // Headers but not the whole body in time: a response all the same, marked cut short.
      answer(true)
      finish({ _tag: "TimedOut", durationMs: elapsed() })
      req.destroy(new Error("timed out"))
    }, Math.max(1, deadline - performance.now()))
    const onAbort = () => {
      finish({ _tag: "Failed", message: "the delivery was interrupted", durationMs: elapsed() })
      req.destroy(new Error("interrupted"))
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    req.on("response", (res) => {
      responded = { status: res.statusCode ?? 0, durationMs: elapsed(), headers: res.headers }
      res.on("error", () => answer(true))
      // Kept up to the limit; past it nothing more is read (the connection is dropped).
      let received = 0
      res.on("data", (chunk: Buffer) => {
        if (received <= maxBody) chunks.push(chunk)
        received += chunk.length
        if (received > maxBody) {
          answer(true)
          res.destroy()
        }
      })
      res.on("end", () => answer(false))
      res.on("close", () => answer(true))
    })
    req.on("error", (error) => {
      answer(true)
      finish({ _tag: "Failed", message: errorText(error), durationMs: elapsed() })
    })
    req.end(body)
  })
}

/** `WebhookTransport` over Node's HTTP clients. */
export const layer: Layer.Layer<WebhookTransport> = Layer.succeed(
  WebhookTransport,
  WebhookTransport.of({
    send: (request) => Effect.promise((signal) => sendWebhook(request, { signal }))
  })
)
