/**
 * The SSRF guard at registration (API rules §6), on a server WITHOUT the private-address
 * allowance (`WEBHOOK_ALLOW_PRIVATE` unset): loopback, private, link-local, CGNAT, metadata,
 * unique-local and unspecified addresses are refused in every mode and in every spelling, and so
 * is a host name that resolves to loopback. (Delivery-time checks are in Webhooks.test.ts.)
 */
import { randomBytes } from "node:crypto"
import { beforeAll, expect, it } from "vitest"
import { forEachDatabase, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"

// The environment is read once per test file, when the first server is built. A key of its own:
// without one, secrets would be encrypted under a local key file in ./data.
delete process.env.WEBHOOK_ALLOW_PRIVATE
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")

forEachDatabase("Webhook SSRF guard", (database) => {
  const strict = useTestServer(database)
  let partner: TestPartner

  beforeAll(async () => {
    partner = await strict.partner()
  })

  it.each([
    "https://127.0.0.1/hook",
    "https://10.0.0.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://2130706433/hook",
    "https://0x7f000001/hook",
    "https://0177.0.0.1/hook",
    "https://localhost/hook",
    "https://localhost:8443/hook",
    "https://192.168.1.10/hook",
    "https://100.64.0.1/hook",
    "https://[fd00::1]/hook",
    "https://[fe80::1]/hook",
    "https://0.0.0.0/hook"
  ])("refuses %s at registration unless allowed", async (url) => {
    for (const apiKey of [partner.live, partner.sandbox]) {
      const response = await strict.request("POST", "/v1/webhooks", { apiKey, body: { url } })
      expect(response.status, response.text).toBe(400)
      expect(response.body.code).toBe("params_validation")
    }
  })

  it("takes plain HTTP only from sandbox keys; HTTPS to a public host always", async () => {
    const http = await strict.request("POST", "/v1/webhooks", { apiKey: partner.live, body: { url: "http://hooks.example.com/x" } })
    expect(http.status).toBe(400)
    expect(http.body.code).toBe("params_validation")
    expect((await strict.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: "http://hooks.example.com/x" } })).status).toBe(201)
    expect((await strict.request("POST", "/v1/webhooks", { apiKey: partner.live, body: { url: "https://hooks.example.com/x" } })).status).toBe(201)
    expect((await strict.request("POST", "/v1/webhooks", { apiKey: partner.live, body: { url: "https://93.184.216.34/x" } })).status).toBe(201)
  })
})
