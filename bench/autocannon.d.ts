// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module "autocannon" {
  export interface Histogram {
    readonly average: number
    readonly mean: number
    readonly stddev: number
    readonly min: number
    readonly max: number
    readonly total: number
    readonly p50: number
    readonly p90: number
    readonly p99: number
    readonly p99_9: number
  }
  export interface Result {
    readonly duration: number
    readonly requests: Histogram
    readonly latency: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly "2xx": number
    readonly statusCodeStats: Record<string, { readonly count: number }>
  }
  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request
  }
  export interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly pipelining?: number
    readonly timeout?: number
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly requests?: ReadonlyArray<Request>
  }
  export interface Instance extends PromiseLike<Result> {
    stop(): void
  }
  function autocannon(options: Options): Instance
  export default autocannon
}
