// Requests run without the application's services: the routes need none at request time (a type
// check), and a handler group keeps only its middleware for its requests.
import { Context, Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { describe, expect, expectTypeOf, it } from "vitest"
import type { RequestRequirements } from "../src/ServiceRoutes.ts"
import * as HandlerGroup from "../src/server/HandlerGroup.ts"

class Big extends Context.Service<Big, { readonly label: string }>()("@paygate/test/Big") {}
class Tagged extends Context.Service<Tagged, { readonly by: string }>()("@paygate/test/Tagged") {}
class Tag extends HttpApiMiddleware.Service<Tag, { provides: Tagged }>()("@paygate/test/Tag") {}

class Probe extends HttpApiGroup.make("probe").add(
  HttpApiEndpoint.get("keys", "/keys", { success: Schema.Array(Schema.String) }).middleware(Tag)
) {}
class ProbeApi extends HttpApi.make("probe").add(Probe) {}

const TagLive = Layer.succeed(Tag, (handler) => Effect.provideService(handler, Tagged, { by: "middleware" }))

const serve = (group: typeof HandlerGroup.group) => {
  const handlers = group(ProbeApi, "probe", (h) =>
    Effect.gen(function*() {
      // Taken when the group is built, as every paygate handler does.
      const big = yield* Big
      return h.handle("keys", () =>
        Effect.gen(function*() {
          const tagged = yield* Tagged
          const keys = [...(yield* Effect.context<never>()).mapUnsafe.keys()]
          return [big.label, tagged.by, ...keys]
        }))
    }))
  return HttpRouter.toWebHandler(
    HttpApiBuilder.layer(ProbeApi).pipe(
      Layer.provide(handlers),
      Layer.provide([TagLive, Layer.succeed(Big, { label: "built" })]),
      Layer.provide(HttpServer.layerServices)
    ),
    { disableLogger: true }
  )
}

const keysOf = async (group: typeof HandlerGroup.group) => {
  const { dispose, handler } = serve(group)
  try {
    const response = await handler(new Request("http://localhost/keys"))
    expect(response.status).toBe(200)
    return (await response.json()) as Array<string>
  } finally {
    await dispose()
  }
}

describe("request context", () => {
  it("the routes read no service at request time", () => {
    expectTypeOf<RequestRequirements>().toEqualTypeOf<never>()
  })

  it("a handler group's requests carry its middleware, not the services it was built from", async () => {
    const [label, by, ...keys] = await keysOf(HandlerGroup.group)
    expect([label, by]).toEqual(["built", "middleware"])
    expect(keys).not.toContain(Big.key)
    // HttpApiBuilder.group itself carries everything into each request: what HandlerGroup avoids.
    const [, , ...everything] = await keysOf(HttpApiBuilder.group)
    expect(everything).toContain(Big.key)
  })
})
