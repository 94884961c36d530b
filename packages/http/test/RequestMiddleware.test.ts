import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Exit, Layer, Logger, Metric, Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import { createServer, request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as MetricSeries from "../src/observability/MetricSeries.ts"
import { RouteMetrics } from "../src/server/MetricsEndpoint.ts"
import { RequestIdBytes } from "../src/server/RequestId.ts"
import { interruptedStatus, RequestMiddleware } from "../src/server/RequestMiddleware.ts"

interface Logged {
  readonly level: string
  readonly message: unknown
}

const logged: Array<Logged> = []
const capture = Logger.make((options) => logged.push({ level: options.logLevel, message: options.message }))

let release: ((exit: Exit.Exit<unknown>) => Promise<void>) | undefined
let port = 0
let started: () => void
const handlerStarted = new Promise<void>((resolve) => (started = resolve))

// Not the shared test server: a real socket (a client that goes away) and routes that fail or hang on demand.
const routes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  yield* router.add("GET", "/slow", Effect.andThen(Effect.sync(() => started()), Effect.never))
  yield* router.add("GET", "/fails", Effect.die(new Error("boom")))
  yield* router.add("GET", "/fine", Effect.succeed(HttpServerResponse.text("fine")))
})).pipe(Layer.provide(RouteMetrics))

beforeAll(async () => {
  const scope = Effect.runSync(Scope.make())
  const server = HttpRouter.serve(Layer.mergeAll(routes, RequestMiddleware), { disableLogger: true }).pipe(
    Layer.provide(Layer.succeed(RequestIdBytes, (size) => new Uint8Array(randomBytes(size)))),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(server, scope).pipe(Effect.provide(Logger.layer([capture]))))
  const { address } = Context.get(context, HttpServer.HttpServer)
  port = address._tag === "UnixPathAddress" ? 0 : address.port
  release = (exit) => Effect.runPromise(Scope.close(scope, exit))
})

afterAll(() => release?.(Exit.void))

const get = (path: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end()
  })

const count = (route: string, status: number) => Effect.runSync(Metric.value(MetricSeries.requestSeriesFor("GET", route, status).count)).count

const accessLines = (path: string) =>
  logged.filter((l) => Array.isArray(l.message) && l.message[0] === "request" && (l.message[1] as { path: string }).path === path)

describe("the request middleware", () => {
  it("answers, counts and logs a request once", async () => {
    expect(await get("/fine")).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(count("/fine", 200)).toBe(1)
    expect(accessLines("/fine")).toHaveLength(1)
  })

  it("logs and counts a failure as 500 internal_error", async () => {
    expect(await get("/fails")).toBe(500)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(count("/fails", 500)).toBe(1)
    expect(logged.filter((l) => Array.isArray(l.message) && l.message[0] === "unhandled request failure")).toHaveLength(1)
  })

  it("does not take a request whose client went away for a server error", async () => {
    const errorsBefore = logged.filter((l) => l.level === "Error").length
    const req = request({ host: "127.0.0.1", port, path: "/slow" })
    req.on("error", () => {})
    req.end()
    await handlerStarted
    req.destroy()
    // The server notices the closed socket and interrupts the request's fiber.
    for (let i = 0; i < 50 && accessLines("/slow").length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(logged.filter((l) => l.level === "Error").length).toBe(errorsBefore)
    expect(count("/slow", 500)).toBe(0)
    expect(count("/slow", interruptedStatus)).toBe(1)
    expect(accessLines("/slow").map((l) => (l.message as [string, { status: number }])[1].status)).toEqual([interruptedStatus])
  })
})
