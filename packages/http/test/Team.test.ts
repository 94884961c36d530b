import { SqlClient } from "effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { permissionOf } from "../src/server/Permissions.ts"
import { forEachDatabase, type TestPartner, type TestResponse, unique, useTestServer } from "../../../test/support/TestServer.ts"

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const tokenOf = (response: TestResponse) => /paygate_session=([^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? ""
const password = "correct horse battery staple"

/** A signed-in dashboard session: sends with its cookie and, for a change, its CSRF token. */
interface Session {
  readonly body: any
  readonly send: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<TestResponse>
}

forEachDatabase("Team", (database) => {
  const server = useTestServer(database)

  const sessionOf = (response: TestResponse): Session => {
    expect(response.status, response.text).toBe(201)
    const cookie = `paygate_session=${tokenOf(response)}`
    const csrfToken = response.body.csrfToken as string
    return {
      body: response.body,
      send: (method, path, body, headers = {}) =>
        server.request(method, path, { body, headers: { cookie, ...headers, ...(method === "GET" ? {} : { "csrf-token": csrfToken }) } })
    }
  }

  const invite = async (apiKey: string, role: string, email = `${unique("member")}@example.com`) => {
    const response = await server.request("POST", "/v1/team/invitations", { apiKey, body: { email, role } })
    expect(response.status, response.text).toBe(201)
    return { ...response.body, token: new URL(response.body.url).hash.slice(1) as string }
  }

  const member = async (partner: TestPartner, role: string) => {
    const invitation = await invite(partner.sandbox, role)
    return { invitation, session: sessionOf(await server.request("POST", "/dashboard/invitation", { body: { token: invitation.token, password } })) }
  }

  describe("invitations", () => {
    it("hands the owner a one-time link (its token kept only hashed); accepting sets the password and signs the member in", async () => {
      const partner = await server.partner()
      const email = `${unique("Ada")}@Example.com`
      const invitation = await invite(partner.sandbox, "developer", `  ${email} `)
      expect(invitation).toMatchObject({ email: email.toLowerCase(), role: "developer", mode: "sandbox" })
      expect(invitation.url).toMatch(/^http:\/\/[^/]+\/dashboard\/invitation#[A-Za-z0-9_-]{43}$/)
      expect(invitation.expiresAt - Date.now() / 1000).toBeGreaterThan(7 * 86400 - 60)
      const stored = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`SELECT token_sha256 FROM team_invitations WHERE email = ${email.toLowerCase()}`
      }))
      expect(stored).toEqual([{ token_sha256: sha256(invitation.token) }])

      const weak = await server.request("POST", "/dashboard/invitation", { body: { token: invitation.token, password: "short" } })
      expect([weak.status, weak.body.code]).toEqual([400, "params_validation"])
      const accepted = sessionOf(await server.request("POST", "/dashboard/invitation", { body: { token: invitation.token, password } }))
      expect(accepted.body).toMatchObject({ partnerId: partner.partnerId, mode: "sandbox", member: { email: email.toLowerCase(), role: "developer" } })
      const hash = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`SELECT password_hash FROM team_members WHERE email = ${email.toLowerCase()}`
      }))
      expect(String(hash[0]!.password_hash)).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
      expect(String(hash[0]!.password_hash)).not.toContain(password)

      // Once only.
      const again = await server.request("POST", "/dashboard/invitation", { body: { token: invitation.token, password } })
      expect([again.status, again.body.code]).toEqual([401, "unauthorized"])
      const unknown = await server.request("POST", "/dashboard/invitation", { body: { token: "A".repeat(43), password } })
      expect([unknown.status, unknown.body.code]).toEqual([401, "unauthorized"])
    })

    it("refuses an expired invitation and a malformed email", async () => {
      const partner = await server.partner()
      const invitation = await invite(partner.sandbox, "viewer")
      await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE team_invitations SET expires_at = 1 WHERE id = ${invitation.invitationId}`
      }))
      const expired = await server.request("POST", "/dashboard/invitation", { body: { token: invitation.token, password } })
      expect([expired.status, expired.body.code]).toEqual([401, "unauthorized"])
      for (const email of ["", "no-at-sign", "a@b", `${"x".repeat(250)}@example.com`]) {
        const response = await server.request("POST", "/v1/team/invitations", { apiKey: partner.sandbox, body: { email, role: "viewer" } })
        expect([response.status, response.body.code], email).toEqual([400, "params_validation"])
      }
      const role = await server.request("POST", "/v1/team/invitations", { apiKey: partner.sandbox, body: { email: "a@example.com", role: "admin" } })
      expect(role.status).toBe(400)
    })

    it("signs a member in with email and password; a wrong password or unknown email is the same 401", async () => {
      const partner = await server.partner()
      const { invitation } = await member(partner, "operator")
      const signedIn = sessionOf(await server.request("POST", "/dashboard/session", { body: { email: invitation.email.toUpperCase(), password } }))
      expect(signedIn.body.member.role).toBe("operator")
      const wrong = await server.request("POST", "/dashboard/session", { body: { email: invitation.email, password: `${password}!` } })
      const unknown = await server.request("POST", "/dashboard/session", { body: { email: "nobody@example.com", password } })
      expect([wrong.status, wrong.body]).toEqual([401, { code: "unauthorized", message: "That email and password do not match a team member." }])
      expect([unknown.status, unknown.body]).toEqual([wrong.status, wrong.body])
    })
  })

  describe("roles", () => {
    it("a viewer reads every partner operation of /openapi.json and is refused every change with 403 forbidden", async () => {
      const partner = await server.partner()
      const { session } = await member(partner, "viewer")
      const spec = (await server.request("GET", "/openapi.json")).body
      const operations = Object.entries(spec.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, operation]) => JSON.stringify(operation.security ?? []).includes("DashboardSession"))
          .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "pay_00000000000000000000000000") }))
      )
      expect(operations.length).toBeGreaterThan(40)
      for (const { method, path } of operations) {
        const response = await session.send(method, path, method === "GET" || method === "DELETE" ? undefined : {})
        // The audit log is the one read kept for owners.
        if (method === "GET" && path !== "/v1/audit-log") expect(response.status, `${method} ${path}: ${response.text}`).not.toBe(403)
        else expect([response.status, response.body?.code], `${method} ${path}`).toEqual([403, "forbidden"])
      }
      // The same key's own session keeps the partner's full rights.
      const owner = sessionOf(await server.request("POST", "/dashboard/session", { body: { apiKey: partner.sandbox } }))
      expect((await owner.send("POST", "/v1/webhooks", { url: "https://example.com/hook" })).status).toBe(201)
    })

    it("operators refund, developers manage webhooks and keys, neither does the other's work; the refusal comes before the request is read", async () => {
      const partner = await server.partner()
      const merchantId = await server.merchant(partner.sandbox)
      const paid = await server.payment(partner.sandbox, merchantId)
      await server.succeed(paid.paymentId)
      const operator = (await member(partner, "operator")).session
      const developer = (await member(partner, "developer")).session
      const refused = await developer.send("POST", "/v1/refunds", { paymentId: paid.paymentId })
      expect([refused.status, refused.body.code]).toEqual([403, "forbidden"])
      expect(refused.body.message).toBe("Your role (developer) does not allow this; ask an owner of the team.")
      expect((await operator.send("POST", "/v1/webhooks", { url: "https://example.com/hook" })).status).toBe(403)
      expect((await operator.send("POST", "/v1/api-keys")).status).toBe(403)
      const refund = await operator.send("POST", "/v1/refunds", { paymentId: paid.paymentId })
      expect(refund.status, refund.text).toBe(201)
      expect((await developer.send("POST", "/v1/webhooks", { url: "https://example.com/hook" })).status).toBe(201)
      expect((await developer.send("POST", "/v1/api-keys")).status).toBe(201)
      // Merchants, the team and the audit log are the owners'.
      for (const session of [operator, developer]) {
        expect((await session.send("POST", "/v1/merchants", { merchantName: "Nope" })).status).toBe(403)
        expect((await session.send("POST", "/v1/team/invitations", { email: "x@example.com", role: "owner" })).status).toBe(403)
        expect((await session.send("GET", "/v1/audit-log")).status).toBe(403)
      }
    })

    it("an operation missing from the permission map is the owners' alone", () => {
      expect(permissionOf("links.archive")).toBe("owner")
      expect(permissionOf("exports.download")).toBe("owner")
      expect(permissionOf("toString")).toBe("owner")
      expect(permissionOf("refunds.create")).toBe("operator")
    })
  })

  describe("members", () => {
    it("lists members, changes a role at once, never demotes or removes the last owner, and removal ends the member's sessions", async () => {
      const partner = await server.partner()
      const first = await member(partner, "owner")
      const viewer = await member(partner, "viewer")
      const list = await first.session.send("GET", "/v1/team/members")
      expect(list.body.data.map((one: any) => [one.email, one.role])).toEqual([[first.invitation.email, "owner"], [viewer.invitation.email, "viewer"]])
      const ownerId = list.body.data[0].memberId
      const viewerId = list.body.data[1].memberId

      const demote = await first.session.send("PATCH", `/v1/team/members/${ownerId}`, { role: "viewer" })
      expect([demote.status, demote.body.code]).toEqual([409, "invalid_state"])
      const remove = await server.request("DELETE", `/v1/team/members/${ownerId}`, { apiKey: partner.sandbox })
      expect([remove.status, remove.body.code]).toEqual([409, "invalid_state"])
      const unknown = await first.session.send("PATCH", "/v1/team/members/mem_unknown", { role: "viewer" })
      expect([unknown.status, unknown.body.code]).toEqual([404, "api_key_not_found"])
      // Another partner's member is unknown here.
      const other = await server.partner()
      expect((await server.request("DELETE", `/v1/team/members/${viewerId}`, { apiKey: other.sandbox })).status).toBe(404)

      expect((await viewer.session.send("POST", "/v1/merchants", { merchantName: "Not yet" })).status).toBe(403)
      const promoted = await first.session.send("PATCH", `/v1/team/members/${viewerId}`, { role: "owner" })
      expect(promoted.body.role).toBe("owner")
      expect((await viewer.session.send("POST", "/v1/merchants", { merchantName: "Now" }, { "idempotency-key": unique("merchant") })).status).toBe(201)
      // Two owners: one may step down.
      expect((await viewer.session.send("PATCH", `/v1/team/members/${ownerId}`, { role: "viewer" })).status).toBe(200)

      expect((await server.request("DELETE", `/v1/team/members/${ownerId}`, { apiKey: partner.sandbox })).status).toBe(204)
      const ended = await first.session.send("GET", "/v1/payments")
      expect([ended.status, ended.body.code]).toEqual([401, "unauthorized"])
      const signIn = await server.request("POST", "/dashboard/session", { body: { email: first.invitation.email, password } })
      expect(signIn.status).toBe(401)
    })
  })

  describe("audit log", () => {
    it("records who refunded, changed keys, webhooks and members, newest first; owners and keys read it, others cannot", async () => {
      const partner = await server.partner()
      const merchantId = await server.merchant(partner.sandbox)
      const paid = await server.payment(partner.sandbox, merchantId)
      await server.succeed(paid.paymentId)
      const operator = await member(partner, "operator")
      const refund = await operator.session.send("POST", "/v1/refunds", { paymentId: paid.paymentId })
      const webhook = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: "https://example.com/hook" } })
      const denied = await operator.session.send("POST", "/v1/api-keys")
      expect(denied.status).toBe(403)
      await operator.session.send("GET", "/v1/payments")

      const log = await server.request("GET", "/v1/audit-log", { apiKey: partner.sandbox })
      expect(log.status).toBe(200)
      const keyId = (await server.request("GET", "/v1/api-keys", { apiKey: partner.sandbox })).body.data.find((key: any) => key.mode === "sandbox").id
      expect(log.body.data.map((entry: any) => [entry.actor, entry.action, entry.subject])).toEqual([
        [`key:${keyId}`, "webhooks.create", `/v1/webhooks ${webhook.body.id}`],
        [`member:${operator.invitation.email}`, "refunds.create", `/v1/refunds ${refund.body.refundId}`],
        [`member:${operator.invitation.email}`, "team.accept", expect.stringMatching(/^mem_\w+ as operator$/)],
        [`key:${keyId}`, "team.invite", `/v1/team/invitations ${operator.invitation.invitationId}`],
        [`key:${keyId}`, "payments.create", `/v1/payments ${paid.paymentId}`],
        [`key:${keyId}`, "merchants.create", `/v1/merchants ${merchantId}`]
      ])
      for (const entry of log.body.data) expect(Math.abs(entry.at - Date.now() / 1000)).toBeLessThan(120)
      expect((await operator.session.send("GET", "/v1/audit-log")).status).toBe(403)
      // Another partner sees none of it.
      const other = await server.partner()
      expect((await server.request("GET", "/v1/audit-log", { apiKey: other.sandbox })).body.data).toEqual([])
    })
  })
})
