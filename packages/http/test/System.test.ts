import { Database } from "@paygate/adapters"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { Readiness } from "../src/server/Readiness.ts"
import { SqlReadiness } from "../src/server/SqlReadiness.ts"
import { forEachDatabase, useTestServer } from "../../../test/support/TestServer.ts"

forEachDatabase("probes", (database) => {
  const server = useTestServer(database)

  it("GET /healthz answers while the process runs, without credentials", async () => {
    const response = await server.request("GET", "/healthz")
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { status: "ok" } })
  })

  it("GET /readyz answers ready once the database has every migration", async () => {
    const response = await server.request("GET", "/readyz")
    expect(response.status).toBe(200)
    expect(response.body.status).toBe("ready")
    expect(response.body.migrations).toBeGreaterThanOrEqual(1)
  })
})

describe("readiness", () => {
  it("is not ready on a database whose migrations are not applied", async () => {
    const exit = await Effect.runPromiseExit(
      Readiness.use((r) => r.check).pipe(Effect.provide(SqlReadiness), Effect.provide(Database.layerMemory()))
    )
    expect(Exit.isFailure(exit)).toBe(true)
  })
})
