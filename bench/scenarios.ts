/**
 * What the bench measures. A scenario is a group of loads measured in the same interleaved rounds
 * (so their ratios compare like with like), or a reason it cannot be measured yet. To add a
 * measurement: add a scenario with its loads (an {@link HttpLoad} per system, or a custom `run`
 * for work that is not request/response, such as draining webhooks), and its goals in `report.ts`.
 */
import { options, prepareConfirms, underConfirms } from "./gateway.ts"
import { type HttpLoad, type LoadSettings, runHttp, type Sample, uniqueSequence } from "./lib/load.ts"
import type { BenchContext } from "./lib/context.ts"
import type { Server } from "./lib/processes.ts"

/** The systems a scenario measures side by side, each started fresh for it. */
export type System = "service" | "floor" | "raw"

/** One measured load. */
export interface Load {
  readonly id: string
  readonly label: string
  /** Which process is measured (for the report). */
  readonly system: System
  /** A diagnostic, not a goal's load: measured only when `BENCH_DIAGNOSTICS=1` or named in `BENCH_LOADS`. */
  readonly diagnostic?: boolean
  /** `undefined` when measurable; else the reason, printed as "not yet measurable: <reason>". */
  readonly unavailable?: (servedPaths: ReadonlySet<string>) => string | undefined
  /** Runs the load for `seconds` and measures it. */
  readonly run: (context: BenchContext, settings: LoadSettings, seconds: number) => Promise<Sample>
  /** Work the load needs done once, before any load runs and outside every measurement (e.g. signing confirms). */
  readonly prepare?: (context: BenchContext) => Promise<void>
}

/** The seeded database and what it holds. */
export interface ScenarioTemplate {
  readonly url: string
  /** The seeded partner's API key. */
  readonly apiKey: string
  readonly partnerId: string
  readonly merchantId: string
  readonly paymentIds: ReadonlyArray<string>
}

/** A database of a scenario's own, copied for it instead of the seeded one. */
export interface ScenarioDatabase {
  readonly url: string
  /** The payments its status loads read. */
  readonly paymentIds: ReadonlyArray<string>
  /** A cursor deep into the partner's payment listing. */
  readonly listCursor: string
  /** Environment every system of the scenario starts with (settings the database's data depends on). */
  readonly env?: Record<string, string>
}

/** A group of loads measured together, or why it cannot be measured yet. */
export interface Scenario {
  readonly id: string
  readonly title: string
  /** `undefined` when measurable; else the reason, printed as "not yet measurable: <reason>". */
  readonly unavailable: (servedPaths: ReadonlySet<string>) => string | undefined
  readonly loads: ReadonlyArray<Load>
  /** The database its systems start on (a copy of it), when not the seeded one. */
  readonly database?: (template: ScenarioTemplate) => Promise<ScenarioDatabase>
  /** Rounds and seconds per run, when not the run's. */
  readonly rounds?: number
  readonly seconds?: number
}

/** A load on a system's status route, run at the start and the end of every scenario to see it drift. */
export interface Canary {
  readonly system: System
  readonly load: Load
}

/** A load's `run` for the HTTP load `make` builds once per context. */
export const http = (make: (context: BenchContext) => HttpLoad): Load["run"] => {
  const loads = new WeakMap<BenchContext, HttpLoad>()
  return (context, settings, seconds) => {
    let load = loads.get(context)
    if (load === undefined) {
      load = make(context)
      loads.set(context, load)
    }
    return runHttp(load, settings, seconds)
  }
}

const order = (referenceId: string) => JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId })

const rotating = (ids: ReadonlyArray<string>) => {
  let n = 0
  return () => ids[n++ % ids.length]!
}

/** `POST /v1/merchant/payment` with an `Idempotency-Key`, each request a new order. */
export const createLoad = (id: string, label: string): Load => ({
  id,
  label,
  system: "service",
  run: http((context) => {
    const unique = uniqueSequence(`${context.runId}-svc`)
    return {
      url: context.service.url,
      method: "POST",
      headers: { "api-key": context.apiKey, "merchant-id": context.merchantId, "content-type": "application/json" },
      next: () => {
        const id = unique()
        return { path: "/v1/merchant/payment", headers: { "idempotency-key": id }, body: order(id) }
      }
    }
  })
})

const createService = createLoad("create.service", "service: POST /v1/merchant/payment (Idempotency-Key)")

const createB2: Load = {
  id: "create.b2",
  label: "B2: idempotency claim + payment + outbox, one transaction",
  system: "raw",
  run: http((context) => {
    const unique = uniqueSequence(`${context.runId}-b2`)
    return {
      url: context.baseline.url,
      method: "POST",
      headers: { "content-type": "application/json" },
      next: () => {
        const id = unique()
        return { path: "/b2/payments", headers: { "idempotency-key": id }, body: order(id) }
      }
    }
  })
}

/** The framework floor doing the service's create statements (`floor.ts`), same headers and body. */
const createFloor: Load = {
  id: "create.floor",
  label: "floor: Effect HttpApi + @effect/sql-pg, the service's create statements",
  system: "floor",
  run: http((context) => {
    const unique = uniqueSequence(`${context.runId}-fl`)
    return {
      url: context.floor.url,
      method: "POST",
      headers: { "api-key": context.apiKey, "merchant-id": context.merchantId, "content-type": "application/json" },
      next: () => {
        const id = unique()
        return { path: "/floor/payments", headers: { "idempotency-key": id }, body: order(id) }
      }
    }
  })
}

const createB1: Load = {
  id: "create.b1",
  label: "B1: one INSERT",
  system: "raw",
  run: http((context) => {
    const unique = uniqueSequence(`${context.runId}-b1`)
    return {
      url: context.baseline.url,
      method: "POST",
      headers: { "content-type": "application/json" },
      next: () => ({ path: "/b1/payments", body: order(unique()) })
    }
  })
}

/** Diagnostic: the service's create statements (2 round trips, credentials cached) by hand, same headers and body. */
const createSame: Load = {
  id: "create.same",
  label: "diagnostic: the service's 2 create statements by hand",
  system: "raw",
  diagnostic: true,
  run: http((context) => {
    const unique = uniqueSequence(`${context.runId}-bs`)
    return {
      url: context.baseline.url,
      method: "POST",
      headers: { "api-key": context.apiKey, "merchant-id": context.merchantId, "content-type": "application/json" },
      next: () => {
        const id = unique()
        return { path: "/bs/payments", headers: { "idempotency-key": id }, body: order(id) }
      }
    }
  })
}

/** Status reads rotating over the seeded payments, with the service's credentials (every system gets the same headers). */
const statusReadsOf = (server: (context: BenchContext) => Server, path: (paymentId: string) => string) => (context: BenchContext): HttpLoad => {
  const next = rotating(context.paymentIds)
  return {
    url: server(context).url,
    method: "GET",
    headers: { "api-key": context.apiKey, "merchant-id": context.merchantId },
    next: () => ({ path: path(next()) })
  }
}
/** The service's merchant status, rotating over the context's payments. */
export const serviceStatusReads = statusReadsOf((context) => context.service, (id) => `/v1/merchant/payment/${id}/status`)
const floorStatusReads = statusReadsOf((context) => context.floor, (id) => `/floor/payments/${id}`)
/** A status load of `system`. */
export const statusLoad = (id: string, label: string, system: System, reads: (context: BenchContext) => HttpLoad): Load => ({
  id,
  label,
  system,
  run: http(reads)
})

const statusService = statusLoad("status.service", "service: GET /v1/merchant/payment/:id/status", "service", serviceStatusReads)

/** The framework floor's status: the same SELECT (`floor.ts`), same headers. */
const statusFloor = statusLoad("status.floor", "floor: Effect HttpApi + @effect/sql-pg, one SELECT by id", "floor", floorStatusReads)

/**
 * The floor's status read behind the contract's pipeline written plainly (`lib/PlainPipeline.ts`),
 * same headers: what the service's pipeline would cost at best.
 */
const statusPipeline: Load = {
  id: "status.pipeline",
  label: "floor + the contract's pipeline written plainly, one SELECT by id",
  system: "floor",
  run: http(statusReadsOf((context) => context.floor, (id) => `/floor/pipeline/payments/${id}`))
}

const statusBaseline: Load = {
  id: "status.baseline",
  label: "raw: node:http + pg, one SELECT by id",
  system: "raw",
  run: http((context) => {
    const next = rotating(context.paymentIds)
    return { url: context.baseline.url, method: "GET", next: () => ({ path: `/b1/payments/${next()}` }) }
  })
}

/** Diagnostic: the service's status statement (1 round trip, credentials cached) by hand, same headers. */
const statusSame: Load = {
  id: "status.same",
  label: "diagnostic: the service's status statement by hand",
  system: "raw",
  diagnostic: true,
  run: http(statusReadsOf((context) => context.baseline, (id) => `/bs/payments/${id}`))
}

/** Payment options for 3 accounts on the service's local chain (`bench/gateway.ts`). */
const optionsService: Load = {
  id: "options.service",
  label: "service: POST /v1/gateway/payment/:id/options (3 accounts)",
  system: "service",
  run: options
}

/** `reads` while prepared confirms are posted to the service flat out (`bench/gateway.ts`). */
const underConfirmsLoad = (id: string, label: string, system: System, reads: (context: BenchContext) => HttpLoad): Load => ({
  id,
  label,
  system,
  run: underConfirms(id, reads),
  prepare: prepareConfirms,
  unavailable: (served) => routeMissing(served, "POST", "/v1/gateway/payment/{id}/confirm")
})

/** The service's status with nothing else running, in the confirms' scenario: their p99's reference. */
const confirmsIdleService = statusLoad("confirms.idle.service", "service: GET /v1/merchant/payment/:id/status, idle", "service", serviceStatusReads)

/** Merchant status while the confirms run. */
const statusConfirms = underConfirmsLoad("status.confirms", "service: GET /v1/merchant/payment/:id/status while confirms run flat out", "service", serviceStatusReads)

/** The floor's status with nothing else running, in the confirms' scenario. */
const confirmsIdleFloor = statusLoad("confirms.idle.floor", "floor: one SELECT by id, idle", "floor", floorStatusReads)

/**
 * The floor's status read while the same confirms are posted to the service flat out: what the
 * least an Effect app pays for a status read when the machine and PostgreSQL carry the confirms.
 */
const statusConfirmsFloor = underConfirmsLoad("status.confirms.floor", "floor: one SELECT by id while confirms run flat out (through the service)", "floor", floorStatusReads)

/** Why a load of `method path` cannot run: the service does not serve it yet; `undefined` when it does. */
export const routeMissing = (servedPaths: ReadonlySet<string>, method: string, path: string) =>
  servedPaths.has(path) ? undefined : `${method} ${path} is not served yet (not in /openapi.json)`

/** Every scenario, in report order. Each starts its systems fresh, on a copy of the same seeded database. */
export const scenarios: ReadonlyArray<Scenario> = [
  {
    id: "create",
    title: "Create payment (merchant API) vs the floor, B2 and B1",
    unavailable: () => undefined,
    loads: [createService, createFloor, createB2, createB1, createSame]
  },
  {
    id: "status",
    title: "Merchant status vs the floor and the raw SELECT",
    unavailable: () => undefined,
    loads: [statusService, statusFloor, statusPipeline, statusBaseline, statusSame]
  },
  {
    // A scenario of its own, so that the service and the floor meet the confirms alike: each idle
    // load follows a confirm load in the rotation, each p99 under confirms is compared with its own
    // system's idle p99 of the same rounds, and the status scenario runs no confirms at all.
    id: "confirms",
    title: "Merchant status while confirms run flat out, the service's and the floor's",
    unavailable: () => undefined,
    loads: [confirmsIdleService, statusConfirms, confirmsIdleFloor, statusConfirmsFloor]
  },
  {
    id: "options",
    title: "Payment options for 3 accounts",
    unavailable: (served) => routeMissing(served, "POST", "/v1/gateway/payment/{id}/options"),
    loads: [optionsService]
  }
  // The webhook drain is not request/response: bench/webhooks.ts measures it. The confirm rate
  // (bench/confirms.ts) runs after these.
]

/** Each system's canary: its status load (cheap, and where a decaying client shows first). */
export const canaries: ReadonlyArray<Canary> = [
  { system: "service", load: statusService },
  { system: "floor", load: statusFloor },
  { system: "raw", load: statusBaseline }
]
