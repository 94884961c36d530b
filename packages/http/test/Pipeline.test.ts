import { type IdempotencyStore, latestStableVersion } from "@paygate/domain"
import { Effect, Exit, Logger } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiEndpoint } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { pipeline } from "../src/server/Pipeline.ts"
import { RateLimiter } from "../src/server/RateLimiter.ts"

// Not the shared test server: the pipeline alone around a fake endpoint, whose handler dies or is interrupted on demand.
const request = HttpServerRequest.fromWeb(new Request("http://paygate.test/v1/things/thing_1"))
const endpoint: HttpApiEndpoint.Top = HttpApiEndpoint.get("thing", "/v1/things/:id") as never
const services = {
  rateLimiter: RateLimiter.of({ take: () => Effect.succeed(undefined), size: Effect.succeed(0) }),
  // GET requests never reach the idempotency store.
  idempotency: {} as IdempotencyStore["Service"]
}
const authenticated = Effect.succeed({ partnerId: "ptn_1", keyId: "key_1", pinnedVersion: latestStableVersion })

const run = (inner: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) =>
  pipeline(services, request, inner, endpoint, authenticated, () => (effect) => effect).pipe(
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.provideService(HttpRouter.RouteContext, { params: { id: "thing_1" }, route: {} as never })
  )

describe("the authenticated pipeline", () => {
  it("answers a defect as 500 internal_error and logs it", async () => {
    const errors: Array<unknown> = []
    const logger = Logger.make((options) => options.logLevel === "Error" && errors.push(options.message))
    const response = await Effect.runPromise(run(Effect.die(new Error("boom"))).pipe(Effect.provide(Logger.layer([logger]))))
    expect(response.status).toBe(500)
    expect(errors).toHaveLength(1)
  })

  it("passes an interruption on (the client went away) instead of answering it as a failure", async () => {
    const errors: Array<unknown> = []
    const logger = Logger.make((options) => options.logLevel === "Error" && errors.push(options.message))
    // How the server ends a request whose client closed the connection: its handler is interrupted.
    const exit = await Effect.runPromiseExit(run(Effect.interrupt).pipe(Effect.provide(Logger.layer([logger]))))
    expect(Exit.hasInterrupts(exit)).toBe(true)
    expect(errors).toEqual([])
  })
})
