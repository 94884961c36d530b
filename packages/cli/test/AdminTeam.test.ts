/**
 * The operator invites a partner's first member from the CLI (`team invite`): the invitation link
 * is printed, and the partner's audit log of that mode says the operator did it.
 */
import { expect, it } from "vitest"
import { pglite, useTestServer } from "../../../test/support/TestServer.ts"

const server = useTestServer(pglite)

it("team invite prints the invitation link and records the operator in the partner's audit log", async () => {
  const partner = await server.partner()
  const email = "First.Member@Example.com"
  const invited = await server.admin("team", "invite", "--partner", partner.partnerId, "--email", email, "--role", "owner", "--sandbox") as {
    readonly invitationId: string
    readonly email: string
    readonly role: string
    readonly mode: string
    readonly url: string
    readonly expiresAt: number
  }
  expect(invited).toMatchObject({ email: "first.member@example.com", role: "owner", mode: "sandbox" })
  expect(invited.url).toMatch(/\/dashboard\/invitation#[\w-]{43}$/)
  const log = await server.request("GET", "/v1/audit-log", { apiKey: partner.sandbox })
  expect(log.status).toBe(200)
  expect(log.body.data.map((entry: any) => [entry.actor, entry.action, entry.subject])).toContainEqual(["operator", "team.invite", "first.member@example.com as owner"])
  await expect(server.admin("team", "invite", "--partner", partner.partnerId, "--email", "not-an-email", "--role", "owner")).rejects.toThrow(/email must be an email address/)
})
