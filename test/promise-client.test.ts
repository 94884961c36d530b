import { readFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { createPaygateClient, PaygateError, verifyWebhook, WebhookVerificationError } from "@paygate/http"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { npm, type StartedService, startService } from "./support/NpmStart.ts"

// A merchant backend in plain TypeScript, no Effect: the Promise client over a
// real socket against `npm start`, and its webhook helper on a real delivery.

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

describe("the Promise client against npm start", () => {
  let service: StartedService
  let receiver: Server
  let receiverUrl: string
  const received: Array<Received> = []

  beforeAll(async () => {
    service = await startService({ WEBHOOK_ALLOW_PRIVATE: "true" })
    receiver = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        received.push({ headers: request.headers, body })
        response.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
  }, 120_000)

  afterAll(async () => {
    receiver?.close()
    await service?.stop()
  })

  it("creates a payment, reads its status, makes partner calls and verifies the webhook it causes", async () => {
    const paygate = createPaygateClient({ baseUrl: service.url, apiKey: service.apiKey })
    const endpoint = await paygate.webhooks.create({ payload: { url: receiverUrl, events: ["payment.created", "payment.succeeded"] } })
    expect(endpoint.secret).toMatch(/^whsec_/)

    // The Merchant API: Merchant-Id per call.
    const payment = await paygate.merchantPayment.create(
      { payload: { amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "promise-1" } },
      { merchantId: service.merchantId, idempotencyKey: "promise-1" }
    )
    expect(payment).toMatchObject({ status: "pending", isFinal: false, gatewayUrl: expect.stringContaining(payment.paymentId) })
    const status = await paygate.merchantPayment.status({ params: { id: payment.paymentId } }, { merchantId: service.merchantId })
    expect(status).toEqual({ status: "pending", isFinal: false })

    // The partner API.
    const detail = await paygate.payments.get({ params: { id: payment.paymentId } })
    expect(detail.referenceId).toBe("promise-1")
    const merchants = await paygate.merchants.list({ query: {} })
    expect(merchants.data.map((m) => m.merchantId)).toContain(service.merchantId)
    const page = await paygate.payments.list({ query: { referenceId: "promise-1" } })
    expect(page.data.map((p) => p.paymentId)).toEqual([payment.paymentId])

    // A contract error rejects with its code and status.
    const missing = await paygate.payments.get({ params: { id: "pay_00000000000000000000000000" } }).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(PaygateError)
    expect(missing).toMatchObject({ code: "payment_not_found", status: 404 })
    const unauthorized = await createPaygateClient({ baseUrl: service.url, apiKey: "sk_test_nobody" })
      .payments.list({ query: {} }).catch((error: unknown) => error)
    expect(unauthorized).toMatchObject({ code: "invalid_api_key", status: 401 })

    // The payment.created webhook, as the merchant's receiver sees it.
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100))
    const delivery = received[0]!
    const event = await verifyWebhook({ secret: endpoint.secret, headers: delivery.headers, body: delivery.body })
    expect(event).toMatchObject({ type: "payment.created", data: { payment: { paymentId: payment.paymentId } } })
    // The published Standard Webhooks library agrees.
    expect(new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(event)
    // A changed body, another secret or an old timestamp are refused.
    await expect(verifyWebhook({ secret: endpoint.secret, headers: delivery.headers, body: delivery.body.replace("promise-1", "promise-2") }))
      .rejects.toThrow(WebhookVerificationError)
    await expect(verifyWebhook({ secret: "whsec_" + Buffer.alloc(32, 7).toString("base64"), headers: delivery.headers, body: delivery.body }))
      .rejects.toThrow("no webhook-signature matches the secret")
    await expect(verifyWebhook({ secret: endpoint.secret, headers: delivery.headers, body: delivery.body, toleranceSeconds: -1 }))
      .rejects.toThrow("is more than -1 s away from now")
  }, 60_000)

  it("the example of docs/accepting-payments.md runs as written, as a plain Node script", async () => {
    const result = await npm(["exec", "--", "node", "--input-type=module-typescript", "-e", documentedExample()], {
      PAYGATE_URL: service.url,
      PAYGATE_API_KEY: service.apiKey,
      MERCHANT_ID: service.merchantId
    })
    expect(result.stderr).not.toMatch(/Error/)
    expect(result.stdout).toMatch(/^pay_[0-9A-Za-z]{26} pending\n$/)
  }, 60_000)
})

/** The first `ts` block after the "Promise client" heading of docs/accepting-payments.md, types stripped by Node. */
const documentedExample = () => {
  const page = readFileSync(new URL("../docs/accepting-payments.md", import.meta.url), "utf8")
  const heading = page.indexOf("## Merchant backends in plain TypeScript: the Promise client")
  if (heading < 0) throw new Error("no Promise client section in docs/accepting-payments.md")
  const code = /```ts\n([\s\S]*?)```/.exec(page.slice(heading))?.[1]
  if (code === undefined) throw new Error("no example in docs/accepting-payments.md")
  return code
}
