import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  envelopeOf,
  type EventId,
  eventOwner,
  firstCharge,
  isPaymentEvent,
  isSubscriptionEvent,
  SubscriptionCharge,
  SubscriptionEvent,
  WebhookEvent
} from "../../src/index.ts"
import { subscriptionFixture } from "../../src/testing/SubscriptionFixtures.ts"

const subscription = subscriptionFixture({ status: "active", subscribeTx: `0x${"11".repeat(32)}`, version: 3 })
const charge = firstCharge(subscription, 2, 1_805_184_000_000)
const charged = new SubscriptionEvent({
  id: "evt_1" as EventId,
  type: "subscription.charged",
  partnerId: subscription.partnerId,
  mode: subscription.mode,
  subscription,
  charge: new SubscriptionCharge({ ...charge, status: "succeeded", txHash: `0x${"22".repeat(32)}` }),
  createdAt: 1_805_184_010
})

describe("subscription webhooks", () => {
  it("a subscription's event is neither a payment's nor a destination's, and belongs to its merchant and mode", () => {
    assert.isTrue(isSubscriptionEvent(charged))
    assert.isFalse(isPaymentEvent(charged))
    assert.deepStrictEqual(eventOwner(charged), { mode: "sandbox", merchantId: subscription.merchantId })
  })

  it("its envelope shows the subscription and the charge as the API does: base units as strings, times in seconds", () => {
    const envelope = envelopeOf(charged, "2025-06-01")
    assert.deepStrictEqual(envelope, {
      id: "evt_1",
      type: "subscription.charged",
      apiVersion: "2025-06-01",
      createdAt: 1_805_184_010,
      data: {
        subscription: {
          id: subscription.id,
          planId: subscription.planId,
          merchantId: subscription.merchantId,
          status: "active",
          endedReason: null,
          cancelledBy: null,
          payer: subscription.terms.payer,
          receiver: subscription.terms.receiver,
          asset: subscription.terms.asset,
          network: "eip155:8453",
          amountPerPeriod: "10000000",
          periodSeconds: 2_592_000,
          start: 1_800_000_000,
          periods: 12,
          subscribeTx: subscription.subscribeTx,
          cancelTx: null,
          replacedBy: null,
          createdAt: 1_800_000_000,
          updatedAt: 1_800_000_000
        },
        charge: {
          periodIndex: 2,
          periodStart: 1_800_000_000 + 2 * 2_592_000,
          amount: "10000000",
          status: "succeeded",
          failedAttempts: 0,
          nextAttemptAt: null,
          txHash: `0x${"22".repeat(32)}`,
          lastError: null
        }
      }
    })
  })

  it("the outbox's union reads a subscription's event back as one", () => {
    const json = Schema.encodeSync(Schema.toCodecJson(WebhookEvent))(charged)
    const back = Schema.decodeUnknownSync(Schema.toCodecJson(WebhookEvent))(JSON.parse(JSON.stringify(json)))
    assert.isTrue(back instanceof SubscriptionEvent)
    assert.deepStrictEqual(back, charged)
  })
})
