import { envelopeOf, OutboxEvent } from "@paygate/domain"
import { Schema } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../../test/support/ExpectError.ts"
import { outboxEventsOf } from "../../../test/support/OutboxEvents.ts"
import { checkoutUrl, forEachDatabase, type TestPartner, type TestResponse, useTestServer } from "../../../test/support/TestServer.ts"

const decodeEvent = Schema.decodeUnknownSync(Schema.toCodecJson(OutboxEvent))

forEachDatabase("Payment links", (database) => {
  const server = useTestServer(database)
  let partner: TestPartner
  let merchantId: string

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Links <b>& Co</b>")
  })

  const create = (body: Record<string, unknown>, apiKey = partner.sandbox) =>
    server.request("POST", "/v1/links", { apiKey, body: { merchantId, title: "Donation", usage: "reusable", ...body } })
  const fixed = (value = "1250") => ({ amount: { unit: "iso4217/EUR", value } })
  const visitToken = (n: number) => `visit-token-${n.toString().padStart(12, "0")}`

  /** The buyer's "Pay" on visit `token`, as the page's form posts it. */
  const pay = (linkId: string, token: string, amount?: string) =>
    server.request("POST", `/l/${linkId}/pay`, {
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `paygate_visit=${token}` },
      rawBody: new URLSearchParams(amount === undefined ? { visit: token } : { visit: token, amount }).toString()
    })
  const paymentOf = (response: TestResponse) => {
    expect(response.status).toBe(303)
    const location = response.headers.get("location")!
    expect(location.startsWith(`${checkoutUrl}/pay_`)).toBe(true)
    return location.slice(checkoutUrl.length + 1)
  }

  describe("the partner API", () => {
    it("creates a fixed-amount reusable link: 201 with its page and empty totals", async () => {
      const response = await create(fixed())
      expect(response.status).toBe(201)
      expect(response.body).toMatchObject({
        linkId: expect.stringMatching(/^lnk_[0-9A-HJKMNP-TV-Z]{26}$/),
        merchantId,
        title: "Donation",
        amount: { unit: "iso4217/EUR", value: "1250" },
        minAmount: null,
        usage: "reusable",
        maxPayments: null,
        invoice: null,
        active: true,
        state: "open",
        totals: { payments: 0, succeeded: 0, collected: { unit: "iso4217/EUR", value: "0" } }
      })
      expect(response.body.url).toMatch(new RegExp(`/l/${response.body.linkId}$`))
      const read = await server.request("GET", `/v1/links/${response.body.linkId}`, { apiKey: partner.sandbox })
      expect(read.body).toEqual(response.body)
    })

    it("refuses bad links with params_validation or invalid_params, never 500", async () => {
      const cases: ReadonlyArray<Record<string, unknown>> = [
        {},
        { ...fixed(), openAmount: { unit: "iso4217/EUR" } },
        fixed("0"),
        fixed("12.50"),
        { amount: { unit: "iso4217/XXX", value: "100" } },
        { amount: { unit: "caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", value: "100" } },
        { openAmount: { unit: "iso4217/EUR", minValue: "500", maxValue: "100" } },
        { ...fixed(), usage: "forever" },
        { ...fixed(), usage: "single", maxPayments: 3 },
        { ...fixed(), maxPayments: 0 },
        { ...fixed(), maxPayments: 1.5 },
        { ...fixed(), invoice: { reference: "INV-1" } },
        { ...fixed(), usage: "single", invoice: { reference: "" } },
        { ...fixed(), usage: "single", invoice: { reference: "INV-1", dueDate: "2026-02-30" } },
        { ...fixed(), usage: "single", invoice: { reference: "INV-1", buyerEmail: "not an email" } },
        { ...fixed("1000"), usage: "single", invoice: { reference: "INV-1", lines: [{ description: "A", quantity: 3, unitValue: "300" }] } },
        { ...fixed(), usage: "single", invoice: { reference: "INV-1", lines: [{ description: "A", quantity: -1, unitValue: "300" }] } },
        { ...fixed(), title: "" },
        { ...fixed(), title: "x".repeat(201) },
        { ...fixed(), title: "bell\u0007" },
        { ...fixed(), title: "\ud800" },
        { ...fixed(), expiresAt: 1 }
      ]
      for (const body of cases) {
        const response = await create(body)
        expect(response.status, JSON.stringify(body)).toBe(400)
        expect(["params_validation", "invalid_params"], JSON.stringify(body)).toContain(response.body.code)
      }
      expectError(await create({ ...fixed(), title: 5 }), 400, "invalid_params")
      expectError(await create({ ...fixed(), extra: true }), 400, "params_validation")
      expectError(await create({ ...fixed(), merchantId: "mer_00000000000000000000000000" }), 404, "merchant_not_found")
      // Another partner's merchant is reported as a missing one.
      const other = await server.partner()
      expectError(await create(fixed(), other.sandbox), 404, "merchant_not_found")
      expectError(await server.request("POST", "/v1/links", { body: { merchantId, ...fixed(), title: "t", usage: "reusable" } }), 401, "missing_api_key")
    })

    it("hides a link from another partner and from the other mode: 404, as a missing one", async () => {
      const { body: link } = await create(fixed())
      const other = await server.partner()
      expectError(await server.request("GET", `/v1/links/${link.linkId}`, { apiKey: other.sandbox }), 404, "payment_not_found")
      expectError(await server.request("POST", `/v1/links/${link.linkId}/deactivate`, { apiKey: other.sandbox }), 404, "payment_not_found")
      expectError(await server.request("GET", `/v1/links/${link.linkId}`, { apiKey: partner.live }), 404, "payment_not_found")
      expectError(await server.request("GET", "/v1/links/not-a-link", { apiKey: partner.sandbox }), 404, "payment_not_found")
      const list = await server.request("GET", "/v1/links", { apiKey: other.sandbox })
      expect(list.body).toEqual({ data: [], nextCursor: null })
      expectError(await server.request("GET", "/v1/links?limit=0", { apiKey: partner.sandbox }), 400, "invalid_params")
      expectError(await server.request("GET", "/v1/links?cursor=%%%", { apiKey: partner.sandbox }), 400, "invalid_params")
    })
  })

  describe("the buyer's visit", () => {
    it("opens one payment per visit: a repeated Pay finds it; another visit opens another", async () => {
      const { body: link } = await create(fixed())
      const page = await server.request("GET", `/l/${link.linkId}`)
      expect(page.status).toBe(200)
      const cookie = page.headers.get("set-cookie")!
      expect(cookie).toMatch(new RegExp(`^paygate_visit=[A-Za-z0-9_-]{24}; HttpOnly; SameSite=Lax; Path=/l/${link.linkId}`))
      expect(page.text).toContain("12.50 EUR")
      // The merchant's name is escaped, never markup.
      expect(page.text).toContain("Links &lt;b&gt;&amp; Co&lt;/b&gt;")
      expect(page.text).not.toContain("<b>& Co</b>")

      const first = paymentOf(await pay(link.linkId, visitToken(1)))
      const again = await Promise.all([pay(link.linkId, visitToken(1)), pay(link.linkId, visitToken(1))])
      expect(again.map(paymentOf)).toEqual([first, first])
      const second = paymentOf(await pay(link.linkId, visitToken(2)))
      expect(second).not.toBe(first)

      const record = await server.request("GET", `/v1/payments/${first}`, { apiKey: partner.sandbox })
      expect(record.body).toMatchObject({ linkId: link.linkId, referenceId: link.linkId, amount: { unit: "iso4217/EUR", value: "1250" } })
      const listed = await server.request("GET", `/v1/payments?linkId=${link.linkId}`, { apiKey: partner.sandbox })
      expect(listed.body.data.map((p: any) => p.paymentId).sort()).toEqual([first, second].sort())
      const read = await server.request("GET", `/v1/links/${link.linkId}`, { apiKey: partner.sandbox })
      expect(read.body.totals).toMatchObject({ payments: 2, succeeded: 0 })
    })

    it("carries the link id in the payment's webhook payloads", async () => {
      const { body: link } = await create(fixed())
      const paymentId = paymentOf(await pay(link.linkId, visitToken(3)))
      await server.succeed(paymentId)
      const events = await outboxEventsOf(server, paymentId)
      expect(events.map((event) => event.type)).toEqual(["payment.created", "payment.succeeded"])
      for (const event of events) {
        const envelope = envelopeOf(decodeEvent(event.payload), "2026-02-18")
        expect(envelope.data.payment.linkId).toBe(link.linkId)
      }
    })

    it("takes an amount the buyer enters within the bounds, and says why it refuses one", async () => {
      const { body: link } = await create({ openAmount: { unit: "EUR".replace(/^/, "iso4217/"), minValue: "500", maxValue: "10000" } })
      const page = await server.request("GET", `/l/${link.linkId}`)
      expect(page.text).toContain("at least 5.00 EUR, at most 100.00 EUR")
      for (const amount of ["", "4", "abc", "100.001", "-5", "1e3", "100.01"]) {
        const refused = await pay(link.linkId, visitToken(10), amount)
        expect(refused.status, amount).toBe(400)
        expect(refused.text).toContain("role=\"alert\"")
      }
      const hostile = await pay(link.linkId, visitToken(10), "<script>alert(1)</script>")
      expect(hostile.status).toBe(400)
      expect(hostile.text).not.toContain("<script>alert(1)")
      const paymentId = paymentOf(await pay(link.linkId, visitToken(10), "12.34"))
      const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })
      expect(record.body.amount.value).toBe("1234")
    })

    it("a single-use invoice is paid once: then its page says paid and Pay opens nothing", async () => {
      const { body: link } = await create({
        ...fixed("2500"),
        title: "Consulting",
        usage: "single",
        invoice: {
          reference: "INV-<42>",
          dueDate: "2026-12-31",
          buyerEmail: "buyer@example.com",
          lines: [{ description: "Hour of \"advice\" <i>", quantity: 2, unitValue: "1000" }, { description: "Travel", quantity: 1, unitValue: "500" }]
        }
      })
      expect(link.invoice.lines).toHaveLength(2)
      const page = await server.request("GET", `/l/${link.linkId}`)
      expect(page.text).toContain("INV-&lt;42&gt;")
      expect(page.text).toContain("Hour of &quot;advice&quot; &lt;i&gt;")
      const paymentId = paymentOf(await pay(link.linkId, visitToken(20)))
      const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })
      expect(record.body.referenceId).toBe("INV-<42>")
      // While it is being paid, another visitor cannot open a second payment of the same invoice.
      const busy = await pay(link.linkId, visitToken(21))
      expect(busy.status).toBe(409)
      await server.succeed(paymentId)
      const paid = await server.request("GET", `/l/${link.linkId}`)
      expect(paid.text).toContain("This invoice has been paid")
      expect(paid.text).not.toContain("id=\"link-pay\"")
      for (const token of [visitToken(20), visitToken(22)]) {
        const response = await pay(link.linkId, token)
        expect(response.status).toBe(409)
        expect(response.text).toContain("This invoice has been paid")
      }
      const read = await server.request("GET", `/v1/links/${link.linkId}`, { apiKey: partner.sandbox })
      expect(read.body).toMatchObject({ state: "paid", totals: { payments: 1, succeeded: 1, collected: { value: "2500" } } })
    })

    it("a count-limited link under concurrent visits never exceeds its limit", async () => {
      const { body: link } = await create({ ...fixed("100"), maxPayments: 3 })
      const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => pay(link.linkId, visitToken(100 + i))))
      const opened = responses.filter((response) => response.status === 303)
      expect(opened).toHaveLength(3)
      expect(responses.filter((response) => response.status === 409)).toHaveLength(37)
      const ids = opened.map(paymentOf)
      for (const id of ids) await server.succeed(id)
      const read = await server.request("GET", `/v1/links/${link.linkId}`, { apiKey: partner.sandbox })
      expect(read.body).toMatchObject({ state: "limit_reached", totals: { payments: 3, succeeded: 3, collected: { value: "300" } } })
      const after = await pay(link.linkId, visitToken(200))
      expect(after.status).toBe(409)
      expect(after.text).toContain("taken all the payments it allows")
    })

    it("an abandoned payment frees its place: an expired one no longer counts", async () => {
      const { body: link } = await create({ ...fixed("100"), maxPayments: 1 })
      const first = paymentOf(await pay(link.linkId, visitToken(300)))
      expect((await pay(link.linkId, visitToken(301))).status).toBe(409)
      await server.expireNow(first)
      const second = paymentOf(await pay(link.linkId, visitToken(301)))
      expect(second).not.toBe(first)
      // The first visit's payment expired: its next Pay opens a new one, not the dead one.
      expect((await pay(link.linkId, visitToken(300))).status).toBe(409)
    })

    it("deactivated and expired links say so and open nothing; reactivated ones take payments again", async () => {
      const { body: link } = await create(fixed())
      const off = await server.request("POST", `/v1/links/${link.linkId}/deactivate`, { apiKey: partner.sandbox })
      expect(off.body).toMatchObject({ active: false, state: "inactive" })
      const page = await server.request("GET", `/l/${link.linkId}`)
      expect(page.text).toContain("turned this payment link off")
      const refused = await pay(link.linkId, visitToken(400))
      expect(refused.status).toBe(409)
      const on = await server.request("POST", `/v1/links/${link.linkId}/activate`, { apiKey: partner.sandbox })
      expect(on.body).toMatchObject({ active: true, state: "open" })
      paymentOf(await pay(link.linkId, visitToken(400)))

      const expiring = await create({ ...fixed(), expiresAt: Math.floor(Date.now() / 1000) + 2 })
      expect(expiring.status).toBe(201)
      await new Promise((resolve) => setTimeout(resolve, 2100))
      const expired = await server.request("GET", `/l/${expiring.body.linkId}`)
      expect(expired.text).toContain("This link has expired")
      expect((await pay(expiring.body.linkId, visitToken(401))).status).toBe(409)
      const read = await server.request("GET", `/v1/links/${expiring.body.linkId}`, { apiKey: partner.sandbox })
      expect(read.body.state).toBe("expired")
    })

    it("unknown, malformed and hostile link ids are a not-found page, never 500", async () => {
      for (const id of ["lnk_00000000000000000000000000", "nope", "%3Cscript%3E", "lnk_" + "A".repeat(70), "%00"]) {
        const page = await server.request("GET", `/l/${id}`)
        expect(page.status, id).toBe(404)
        expect(page.text).not.toContain("<script>")
        expect((await pay(id, visitToken(500))).status, id).toBe(404)
        expect((await server.request("GET", `/l/${id}/qr.svg`)).status, id).toBe(404)
      }
    })

    it("lists the partner's links with their totals, newest first, page by page", async () => {
      const fresh = await server.partner()
      const mid = await server.merchant(fresh.sandbox)
      const made: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const response = await server.request("POST", "/v1/links", { apiKey: fresh.sandbox, body: { merchantId: mid, title: `L${i}`, usage: "reusable", ...fixed() } })
        made.push(response.body.linkId)
      }
      paymentOf(await pay(made[0]!, visitToken(600)))
      const first = await server.request("GET", "/v1/links?limit=2", { apiKey: fresh.sandbox })
      expect(first.body.data.map((l: any) => l.linkId)).toEqual([made[2], made[1]])
      const second = await server.request("GET", `/v1/links?limit=2&cursor=${first.body.nextCursor}`, { apiKey: fresh.sandbox })
      expect(second.body.data.map((l: any) => l.linkId)).toEqual([made[0]])
      expect(second.body.data[0].totals.payments).toBe(1)
      expect(second.body.nextCursor).toBeNull()
    })
  })
})
