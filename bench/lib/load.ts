/**
 * Load generation (autocannon, programmatic) and the statistics the report uses.
 */
import autocannon, { type Request } from "autocannon"

/** What one run of one load measured. */
export interface Sample {
  /** Successful (2xx) responses per second. */
  readonly rps: number
  /** Latency percentiles in milliseconds. */
  readonly p50: number
  readonly p99: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly statusCodes: Record<string, number>
}

/** Settings shared by every run. */
export interface LoadSettings {
  readonly connections: number
}

/** One HTTP load: a target URL and how each request is made (unique bodies, rotating ids). */
export interface HttpLoad {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers?: Record<string, string>
  /** Called for every request; answers the path, headers and body of that request. */
  readonly next: () => { readonly path: string; readonly headers?: Record<string, string>; readonly body?: string }
}

/** Runs `load` with `settings.connections` connections for `seconds`. */
export const runHttp = async (load: HttpLoad, settings: LoadSettings, seconds: number): Promise<Sample> => {
  const request: Request = {
    method: load.method,
    setupRequest: (req) => {
      const made = load.next()
      const next: Request = { ...req, path: made.path, headers: { ...load.headers, ...made.headers } }
      if (made.body !== undefined) next.body = made.body
      return next
    }
  }
  const result = await autocannon({
    url: load.url,
    connections: settings.connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    requests: [request]
  })
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number(count)
  return {
    rps: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes
  }
}

/** The median of `values` (the mean of the middle two for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** A sequence of unique strings for this run (idempotency keys, reference ids). */
export const uniqueSequence = (prefix: string) => {
  let n = 0
  return () => `${prefix}-${(n++).toString(36)}`
}
