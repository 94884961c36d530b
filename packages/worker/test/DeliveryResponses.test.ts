/**
 * The delivery log shows what the receiver answered: a real receiver answers JSON, an
 * HTML error page, nothing, a huge body and binary bytes with NUL; the worker keeps at most 2 KiB
 * of each as text and the partner API shows it with the request's (non-secret) headers, on
 * PGlite and on PostgreSQL when `TEST_DATABASE_URL` is set.
 */
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { forEachDatabase } from "../../../test/support/TestServer.ts"
import type { Behavior } from "../../../test/support/Receiver.ts"
import { serverWithReceiver } from "./support/ServerWithReceiver.ts"
import { startWorker } from "./support/TestWorker.ts"

// The environment is read once per test file, when the first server is built; the receiver is local.
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64")
process.env.WEBHOOK_ALLOW_PRIVATE = "true"

const html = "<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"

// Each receiver path answers its own way.
const answers: Record<string, Behavior> = {
  "/json": () => ({ status: 200, headers: { "content-type": "application/json" }, body: "{\"received\":true}" }),
  "/html-error": () => ({ status: 502, headers: { "content-type": "text/html; charset=utf-8", "retry-after": "30" }, body: html }),
  "/empty": () => ({ status: 204 }),
  "/huge": () => ({ status: 200, headers: { "content-type": "text/plain" }, body: Buffer.alloc(5 << 20, "y") }),
  "/binary": () => ({
    status: 200,
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array([0x6f, 0x6b, 0x00, 0xff, 0xfe, 0x80, 0x21])
  })
}

forEachDatabase("Delivery responses", (database) => {
  const ctx = serverWithReceiver(database)

  describe("the delivery log", () => {
    it("shows each receiver's answer (JSON, HTML error, empty, huge, binary) and the request headers, never the secret", async () => {
      const { partner, receiver, server } = ctx
      const suffix = `-${Date.now().toString(36)}`
      const endpoints = new Map<string, { id: string; secret: string }>()
      for (const [path, behavior] of Object.entries(answers)) {
        const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url(path + suffix) } })
        expect(created.status, created.text).toBe(201)
        receiver.expect(path + suffix, created.body.secret)
        receiver.behave(path + suffix, behavior)
        endpoints.set(path, { id: created.body.id, secret: created.body.secret })
      }
      const worker = await startWorker(server.run)
      try {
        const payment = await server.payment(partner.sandbox, ctx.merchantId)
        const logOf = async (path: string) => {
          const response = await server.request("GET", `/v1/webhooks/${endpoints.get(path)!.id}/deliveries`, { apiKey: partner.sandbox })
          expect(response.status, response.text).toBe(200)
          return response.body.data as Array<any>
        }
        const firstAttempt = async (path: string) => {
          await receiver.waitFor(() => receiver.on(path + suffix).length >= 1, 10_000, `a request to ${path}`)
          const deadline = Date.now() + 10_000
          for (;;) {
            const entry = (await logOf(path)).find((d) => d.attempts >= 1)
            if (entry !== undefined) return entry
            if (Date.now() > deadline) throw new Error(`no attempt recorded for ${path}`)
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
        }

        const json = await firstAttempt("/json")
        expect(json).toMatchObject({ status: "succeeded", lastStatusCode: 200, lastError: null })
        expect(json.response).toEqual({
          status: 200,
          contentType: "application/json",
          headers: { "content-type": "application/json" },
          body: "{\"received\":true}",
          truncated: false
        })
        // The request: the headers the receiver got (the signature verified there), none of them the secret.
        const sent = receiver.on("/json" + suffix)[0]!
        expect(sent.verified).toBe(true)
        expect(json.request.headers).toEqual({
          "webhook-id": sent.headers["webhook-id"],
          "webhook-timestamp": sent.headers["webhook-timestamp"],
          "webhook-signature": sent.headers["webhook-signature"],
          "content-type": "application/json",
          "user-agent": sent.headers["user-agent"]
        })
        expect(json.request.headers["webhook-id"]).toBe(json.eventId)
        const event = await server.request("GET", `/v1/events/${json.eventId}`, { apiKey: partner.sandbox })
        expect(JSON.stringify(event.body)).toBe(sent.body)

        const htmlError = await firstAttempt("/html-error")
        expect(htmlError).toMatchObject({ status: "pending", lastStatusCode: 502, lastError: "HTTP 502" })
        expect(htmlError.response).toMatchObject({
          status: 502,
          contentType: "text/html; charset=utf-8",
          headers: { "content-type": "text/html; charset=utf-8", "retry-after": "30" },
          body: html,
          truncated: false
        })

        const empty = await firstAttempt("/empty")
        expect(empty.response).toEqual({ status: 204, contentType: null, headers: {}, body: "", truncated: false })

        const huge = await firstAttempt("/huge")
        expect(huge).toMatchObject({ status: "succeeded", lastStatusCode: 200 })
        expect(huge.response).toMatchObject({ status: 200, contentType: "text/plain", body: "y".repeat(2048), truncated: true })

        const binary = await firstAttempt("/binary")
        expect(binary.response).toMatchObject({ status: 200, body: "ok\uFFFD\uFFFD\uFFFD\uFFFD!", truncated: false })

        // The payment's log shows the same responses; no response anywhere carries a signing secret.
        const byPayment = await server.request("GET", `/v1/payments/${payment.paymentId}/deliveries?limit=100`, { apiKey: partner.sandbox })
        expect(byPayment.status, byPayment.text).toBe(200)
        const forJson = byPayment.body.data.find((d: any) => d.id === json.id)
        expect(forJson.response).toEqual(json.response)
        expect(forJson.request).toEqual(json.request)
        for (const { secret } of endpoints.values()) {
          expect(byPayment.text).not.toContain(secret)
          expect(byPayment.text).not.toContain(secret.slice("whsec_".length))
        }
      } finally {
        await worker.stop()
      }
    })

    it("POST /v1/webhooks/{id}/test answers the receiver's answer too", async () => {
      const { partner, receiver, server } = ctx
      const path = `/test-event-${Date.now().toString(36)}`
      const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url(path) } })
      receiver.expect(path, created.body.secret)
      receiver.behave(path, () => ({ status: 401, headers: { "content-type": "application/problem+json" }, body: "{\"title\":\"bad signature\"}" }))
      const test = await server.request("POST", `/v1/webhooks/${created.body.id}/test`, { apiKey: partner.sandbox })
      expect(test.status, test.text).toBe(200)
      expect(test.body).toMatchObject({ delivered: false, statusCode: 401, error: "HTTP 401" })
      expect(test.body.response).toEqual({
        status: 401,
        contentType: "application/problem+json",
        headers: { "content-type": "application/problem+json" },
        body: "{\"title\":\"bad signature\"}",
        truncated: false
      })
      expect(receiver.on(path)[0]!.verified).toBe(true)
    })

    it("is null before the first attempt and when no answer came in time; documented in /openapi.json", async () => {
      const { partner, receiver, server } = ctx
      const spec = (await server.request("GET", "/openapi.json")).body
      expect(Object.keys(spec.components.schemas.DeliveryRecord.properties)).toEqual(expect.arrayContaining(["request", "response"]))
      expect(Object.keys(spec.components.schemas.DeliveryResponseRecord.properties).sort()).toEqual(
        ["body", "contentType", "headers", "status", "truncated"]
      )
      const path = `/too-slow-${Date.now().toString(36)}`
      const created = await server.request("POST", "/v1/webhooks", { apiKey: partner.sandbox, body: { url: receiver.url(path) } })
      expect(created.status, created.text).toBe(201)
      // Later than the test worker's 1 s time limit.
      receiver.behave(path, () => ({ status: 200, delayMs: 1_500, body: "too late" }))
      const worker = await startWorker(server.run)
      try {
        await server.payment(partner.sandbox, ctx.merchantId)
        await receiver.waitFor(() => receiver.on(path).length >= 1, 10_000, "the first request")
        const logOf = async () =>
          (await server.request("GET", `/v1/webhooks/${created.body.id}/deliveries`, { apiKey: partner.sandbox })).body.data as Array<any>
        // In flight: nothing recorded yet.
        expect((await logOf()).map((d) => [d.attempts, d.request, d.response])).toEqual([[0, null, null]])
        const deadline = Date.now() + 10_000
        let entry: any
        while ((entry = (await logOf())[0]).attempts === 0) {
          if (Date.now() > deadline) throw new Error("the attempt was not recorded")
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        expect(entry).toMatchObject({ lastStatusCode: null, lastError: "no answer within 1 s", response: null })
        expect(entry.request.headers["webhook-id"]).toBe(entry.eventId)
      } finally {
        await worker.stop()
      }
    })
  })
})
