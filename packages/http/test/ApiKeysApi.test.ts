import { CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { forEachDatabase, type TestResponse, useTestServer } from "../../../test/support/TestServer.ts"

const tokenOf = (response: TestResponse) => /paygate_session=([^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? ""

forEachDatabase("Partner API keys", (database) => {
  const server = useTestServer(database)

  const signIn = async (apiKey: string) => {
    const response = await server.request("POST", "/dashboard/session", { body: { apiKey } })
    expect(response.status).toBe(201)
    return { cookie: `paygate_session=${tokenOf(response)}`, csrfToken: response.body.csrfToken as string, keyId: response.body.keyId as string }
  }

  describe("GET /v1/api-keys", () => {
    it("lists the caller's partner's keys of its mode, newest first, with a hint and never a secret; pages with limit and cursor", async () => {
      const partner = await server.partner()
      const other = await server.partner()
      const created = await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({
        id: expect.stringMatching(/^key_/),
        mode: "sandbox",
        hint: created.body.secret.slice(-4),
        createdAt: expect.any(Number),
        revokedAt: null,
        secret: expect.stringMatching(/^sk_test_[A-Za-z0-9_-]{43}$/)
      })
      const listed = await server.request("GET", "/v1/api-keys", { apiKey: partner.sandbox })
      expect(listed.status).toBe(200)
      expect(listed.body.nextCursor).toBeNull()
      expect(listed.body.data).toHaveLength(2)
      expect(listed.body.data.map((k: any) => k.mode)).toEqual(["sandbox", "sandbox"])
      expect(listed.body.data.map((k: any) => k.hint).sort()).toEqual([partner.sandbox.slice(-4), created.body.secret.slice(-4)].sort())
      expect(listed.text).not.toContain(partner.sandbox)
      expect(listed.text).not.toContain(created.body.secret)
      expect(listed.text).not.toContain("secret")
      const live = await server.request("GET", "/v1/api-keys", { apiKey: partner.live })
      expect(live.body.data.map((k: any) => k.mode)).toEqual(["live"])
      expect((await server.request("GET", "/v1/api-keys", { apiKey: other.sandbox })).body.data.map((k: any) => k.id)).not.toContain(created.body.id)

      const first = await server.request("GET", "/v1/api-keys?limit=1", { apiKey: partner.sandbox })
      expect(first.body.data).toHaveLength(1)
      const second = await server.request("GET", `/v1/api-keys?limit=1&cursor=${first.body.nextCursor}`, { apiKey: partner.sandbox })
      expect(second.body.data).toHaveLength(1)
      expect(second.body.nextCursor).toBeNull()
      expect([...first.body.data, ...second.body.data]).toEqual(listed.body.data)
      expect(listed.body.data[0].createdAt).toBeGreaterThanOrEqual(listed.body.data[1].createdAt)
      for (const query of ["limit=0", "limit=x", "cursor=nope"]) {
        expect((await server.request("GET", `/v1/api-keys?${query}`, { apiKey: partner.sandbox })).body.code).toBe("invalid_params")
      }
    })
  })

  describe("POST /v1/api-keys", () => {
    it("creates a working key of the caller's mode; a replay with the same Idempotency-Key does not show the secret again", async () => {
      const partner = await server.partner()
      const created = await server.request("POST", "/v1/api-keys", { apiKey: partner.live, headers: { "idempotency-key": "new-key" } })
      expect(created.body.mode).toBe("live")
      expect(created.body.secret).toMatch(/^sk_live_/)
      expect((await server.request("GET", "/v1/payments", { apiKey: created.body.secret })).status).toBe(200)
      const replay = await server.request("POST", "/v1/api-keys", { apiKey: partner.live, headers: { "idempotency-key": "new-key" } })
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual({ ...created.body, secret: "(shown only in the first response)" })
    })

    it("needs the Csrf-Token with a session cookie", async () => {
      const partner = await server.partner()
      const session = await signIn(partner.sandbox)
      expect((await server.request("POST", "/v1/api-keys", { headers: { cookie: session.cookie } })).body.code).toBe("forbidden")
      const created = await server.request("POST", "/v1/api-keys", { headers: { cookie: session.cookie, "csrf-token": session.csrfToken } })
      expect(created.status).toBe(201)
      expect(created.body.mode).toBe("sandbox")
    })
  })

  describe("DELETE /v1/api-keys/{id}", () => {
    it("revokes the key at once; again changes nothing; unknown, malformed, wallet and other partners' or modes' keys are 404 api_key_not_found", async () => {
      const partner = await server.partner()
      const other = await server.partner()
      const spare = await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox })
      const revoked = await server.request("DELETE", `/v1/api-keys/${spare.body.id}`, { apiKey: partner.sandbox })
      expect(revoked.status).toBe(200)
      expect(revoked.body).toEqual({ ...spare.body, secret: undefined, revokedAt: expect.any(Number) })
      expect((await server.request("GET", "/v1/payments", { apiKey: spare.body.secret })).body.code).toBe("invalid_api_key")
      const again = await server.request("DELETE", `/v1/api-keys/${spare.body.id}`, { apiKey: partner.sandbox })
      expect(again.body).toEqual(revoked.body)

      const foreign = await server.request("POST", "/v1/api-keys", { apiKey: other.sandbox })
      const liveKeyId = await server.run(Effect.gen(function*() {
        return (yield* (yield* CredentialAdmin).listKeys(partner.partnerId)).find((k) => k.mode === "live")!.keyId
      }))
      const walletKeyId = await server.run(Effect.gen(function*() {
        return (yield* (yield* CredentialAdmin).createApp({ name: "Wallet", mode: "sandbox" })).keyId
      }))
      for (const id of [foreign.body.id, liveKeyId, walletKeyId, "key_unknown", "nonsense", "x".repeat(300)]) {
        const refused = await server.request("DELETE", `/v1/api-keys/${id}`, { apiKey: partner.sandbox })
        expect([refused.status, refused.body.code], id).toEqual([404, "api_key_not_found"])
      }
      expect((await server.request("GET", "/v1/payments", { apiKey: foreign.body.secret })).status).toBe(200)
      expect((await server.request("GET", "/v1/payments", { apiKey: partner.live })).status).toBe(200)
    })

    it("ends the sessions of the revoked key, the one revoking included, and only those", async () => {
      const partner = await server.partner()
      const second = await server.request("POST", "/v1/api-keys", { apiKey: partner.sandbox })
      const mine = await signIn(partner.sandbox)
      const onSecond = await signIn(second.body.secret)
      const revoked = await server.request("DELETE", `/v1/api-keys/${mine.keyId}`, { headers: { cookie: mine.cookie, "csrf-token": mine.csrfToken } })
      expect(revoked.status).toBe(200)
      expect((await server.request("GET", "/v1/api-keys", { headers: { cookie: mine.cookie } })).body.code).toBe("unauthorized")
      expect((await server.request("GET", "/dashboard/session", { headers: { cookie: mine.cookie } })).body.code).toBe("unauthorized")
      const still = await server.request("GET", "/v1/api-keys", { headers: { cookie: onSecond.cookie } })
      expect(still.status).toBe(200)
      expect(still.body.data.find((k: any) => k.id === mine.keyId).revokedAt).toEqual(expect.any(Number))
    })
  })
})
