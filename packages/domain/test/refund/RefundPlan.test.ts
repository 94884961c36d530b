import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { PaymentId, RefundId } from "../../src/ids/Ids.ts"
import { pendingPayout } from "../../src/payout/Payout.ts"
import type { Receipt } from "../../src/receipt/Receipt.ts"
import { Refund } from "../../src/refund/Refund.ts"
import { planRefund, type PriorRefunds } from "../../src/refund/RefundPlan.ts"
import { account, commitmentOf, receipt, usdc } from "./Fixtures.ts"

const paymentId = "pay_1" as PaymentId

/** Applies `requests` one after the other, as the store does; answers the prior refunds at the end and the outcomes. */
const run = (value: bigint, tokenAmount: bigint, parts: ReadonlyArray<Receipt>, requests: ReadonlyArray<bigint | null>) => {
  const commitment = commitmentOf(tokenAmount)
  let prior: PriorRefunds = { refunds: [], payouts: [] }
  const outcomes = requests.map((requested, i) => {
    const plan = planRefund({ value, commitment }, parts, prior, requested)
    if (plan._tag !== "Planned") return plan
    const id = `ref_${i}` as RefundId
    const refund = new Refund({
      id, paymentId, partnerId: "ptn_1" as never, currency: "USD", amount: plan.amount, value: plan.value,
      status: "pending", txHash: null, createdAt: 0, updatedAt: 0
    })
    const payouts = plan.legs.map((leg, j) =>
      pendingPayout({ paymentId, kind: "refund", leg: plan.firstLeg + j, refundId: id, asset: usdc, recipient: leg.recipient, value: leg.value }, 0)
    )
    prior = { refunds: [...prior.refunds, refund], payouts: [...prior.payouts, ...payouts] }
    return plan
  })
  return { prior, outcomes }
}

const sum = (values: ReadonlyArray<bigint>) => values.reduce((a, b) => a + b, 0n)

describe("planRefund", () => {
  it("never refunds more than was paid, never rounds in the refund's favour, and a refund of the rest gives back all", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.array(fc.option(fc.bigInt({ min: 1n, max: 10n ** 12n }), { nil: null }), { maxLength: 8 }),
        (value, tokenAmount, requests) => {
          const { outcomes, prior } = run(value, tokenAmount, [], [...requests, null])
          const refunded = sum(prior.refunds.map((r) => r.amount))
          const sent = sum(prior.refunds.map((r) => r.value))
          assert.isTrue(refunded <= value && sent <= tokenAmount)
          assert.strictEqual(sum(prior.payouts.map((p) => p.value)), sent)
          for (const r of prior.refunds) {
            // A partial refund's tokens are at most its share; only a refund using up the amount gets the rounding's rest.
            if (r !== prior.refunds.at(-1) || refunded < value) assert.isTrue(r.value * value <= r.amount * tokenAmount)
          }
          // The final request without an amount takes what is left: all tokens sent, unless nothing was left.
          if (refunded === value) assert.strictEqual(sent, tokenAmount)
          for (const o of outcomes) if (o._tag === "Exceeds") assert.isTrue(o.remaining <= value)
          const legs = prior.payouts.map((p) => p.leg)
          assert.deepStrictEqual(legs, legs.map((_, i) => i))
        }
      )
    )
  })

  it("a payment paid in parts: each sender gets back at most what they paid, in the order they paid", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.bigInt({ min: 1n, max: 10n ** 9n })), { minLength: 2, maxLength: 6 }),
        fc.array(fc.bigInt({ min: 1n, max: 1000n }), { maxLength: 6 }),
        (paid, requests) => {
          const parts = paid.map(([from, v]) => receipt(from, v))
          const tokenAmount = sum(parts.map((p) => p.value))
          const { prior } = run(1000n, tokenAmount, parts, [...requests, null])
          for (const from of [1, 2, 3]) {
            const got = sum(prior.payouts.filter((p) => p.recipient === account(from)).map((p) => p.value))
            assert.isTrue(got <= sum(parts.filter((p) => p.from === account(from)).map((p) => p.value)))
          }
          assert.strictEqual(sum(prior.payouts.map((p) => p.value)), tokenAmount)
        }
      )
    )
  })

  it("an amount too small for one token unit is TooSmall, with the least refundable amount", () => {
    const plan = planRefund({ value: 100_000n, commitment: commitmentOf(300n) }, [], { refunds: [], payouts: [] }, 300n)
    assert.deepStrictEqual(plan, { _tag: "TooSmall", minimum: 334n })
    const least = planRefund({ value: 100_000n, commitment: commitmentOf(300n) }, [], { refunds: [], payouts: [] }, 334n)
    assert.strictEqual(least._tag === "Planned" ? least.value : -1n, 1n)
  })
})
