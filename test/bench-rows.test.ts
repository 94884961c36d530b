/**
 * The bench's baselines share the service's database, so the service's worker reads the events they
 * write. They must read as the service's own: an event the service cannot read is set aside, and
 * every later claim walks over it, which would bill the service for a cost of the bench.
 */
import { WebhookEvent } from "@paygate/domain"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { createdEvent, paymentRow } from "../bench/lib/rows.ts"

describe("the bench's payment.created event", () => {
  it("decodes as the service's own event, and encodes back to the same payload", () => {
    const row = paymentRow("ptn_01M8TQB08FV2GE2DGBD5N2Y87E", "mer_01M8TQB09P7SJ1QQ7MNFXPTDJ9", {
      amount: { unit: "iso4217/USD", value: "1050" },
      referenceId: "order-1"
    })
    const payload = JSON.parse(JSON.stringify(createdEvent("evt_1K8QNB8EUS4D00630HTGH31R3", row)))
    const codec = Schema.toCodecJson(WebhookEvent)
    const event = Schema.decodeUnknownSync(codec)(payload, { onExcessProperty: "error" })
    expect(event.type).toBe("payment.created")
    expect(Schema.encodeSync(codec)(event)).toEqual(payload)
  })
})
