/**
 * The client of the cluster runs (`ClusterRun.ts`): it sends to two API processes like a load
 * balancer would, and retries what got no response (on the other process), an in-flight
 * `idempotency_conflict`, a 429 and a 5xx, always with the same key and body. It counts what it
 * saw and keeps each final response's latency, so a long run can be read minute by minute.
 */
import { type Answer, isConnectionFailure, send } from "./Http.ts"
import { sleep } from "./ServiceProcess.ts"

/** What the client saw, over every request. */
export interface ClientStats {
  requests: number
  retries: number
  connectionFailures: number
  status500: number
  inFlightConflicts: number
  rateLimited: number
  /** Per idempotency key: first and last `idempotency_conflict` (in flight). */
  readonly conflicts: Map<string, { first: number; last: number }>
  readonly unexpected: Array<string>
  /** When each call got its final answer and how long it took, retries included (ms). */
  readonly latencies: Array<{ readonly at: number; readonly ms: number }>
}

/** How a call is sent: headers, an optional JSON body and idempotency key. */
export interface CallOptions {
  readonly headers: Record<string, string>
  readonly body?: unknown
  readonly key?: string
  /** Kept among the latencies (not for long polls, which wait on purpose); true by default. */
  readonly timed?: boolean
}

/** A client over the API processes at `urls()` (read at each request: a restarted process keeps its URL). */
export const makeClusterClient = (urls: () => ReadonlyArray<string>) => {
  const stats: ClientStats = {
    requests: 0,
    retries: 0,
    connectionFailures: 0,
    status500: 0,
    inFlightConflicts: 0,
    rateLimited: 0,
    conflicts: new Map(),
    unexpected: [],
    latencies: []
  }
  // Like a load balancer's health check: a process that did not answer gets no request for 500 ms.
  const downUntil = [0, 0]
  const call = async (api: number, method: string, path: string, options: CallOptions): Promise<Answer> => {
    const headers = options.key === undefined ? options.headers : { ...options.headers, "idempotency-key": options.key }
    const started = Date.now()
    const deadline = started + 60_000
    let target = downUntil[api]! > Date.now() ? 1 - api : api
    for (let attempt = 0;; attempt++) {
      if (attempt > 0) stats.retries++
      if (Date.now() > deadline) throw new Error(`${method} ${path} (key ${options.key}) got no final answer within 60 s`)
      stats.requests++
      let answer: Answer
      try {
        answer = await send(urls()[target]!, method, path, { headers, body: options.body, timeoutMs: 40_000 })
      } catch (error) {
        if (!isConnectionFailure(error)) throw error
        stats.connectionFailures++
        downUntil[target] = Date.now() + 500
        target = 1 - target // the load balancer sends the retry to the other process
        await sleep(100)
        continue
      }
      if (answer.status >= 500) {
        stats.status500++
        stats.unexpected.push(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 200)}`)
        await sleep(200)
        continue
      }
      if (answer.status === 429) {
        stats.rateLimited++
        await sleep(100)
        continue
      }
      if (answer.status === 409 && answer.body?.code === "idempotency_conflict" && options.key !== undefined) {
        stats.inFlightConflicts++
        const now = Date.now()
        const span = stats.conflicts.get(options.key) ?? { first: now, last: now }
        span.last = now
        stats.conflicts.set(options.key, span)
        await sleep(250)
        continue
      }
      const now = Date.now()
      if (options.timed !== false) stats.latencies.push({ at: now, ms: now - started })
      return answer
    }
  }
  return { stats, call }
}
