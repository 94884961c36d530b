import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { beforeAll, expect, it } from "vitest"
import { secretShownOnce } from "../src/server/Idempotency.ts"
import { forEachDatabase, useTestServer, type TestPartner } from "../../../test/support/TestServer.ts"

// Read once per process by the webhook adapters: a fixed key, so no key file is written.
process.env.WEBHOOK_SECRET_KEY = Buffer.alloc(32, 7).toString("base64")

forEachDatabase("idempotent responses never keep secrets", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  beforeAll(async () => {
    partner = await server.partner()
  })

  it("shows a webhook secret once; the replay and the stored response do not carry it", async () => {
    const register = () =>
      server.request("POST", "/v1/webhooks", {
        apiKey: partner.sandbox,
        headers: { "idempotency-key": "hook-1" },
        body: { url: "https://hooks.example.invalid/paygate" }
      })
    const first = await register()
    expect(first.status).toBe(201)
    expect(first.body.secret).toMatch(/^whsec_/)
    const replay = await register()
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body).toEqual({ ...first.body, secret: secretShownOnce })
    const stored = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ readonly body: string }>`SELECT response_body AS body FROM idempotency_keys`
    }))
    expect(stored.length).toBeGreaterThan(0)
    for (const row of stored) expect(String(row.body)).not.toContain(first.body.secret)
  })
})
