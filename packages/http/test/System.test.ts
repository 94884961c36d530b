import { Database, Migrations } from "@paygate/adapters"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
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
      Effect.flatten(Migrations.readiness).pipe(Effect.provide(Database.layerMemory()))
    )
    expect(Exit.isFailure(exit)).toBe(true)
  })
})
