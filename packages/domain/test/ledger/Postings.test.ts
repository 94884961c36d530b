import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { PartnerId, PaymentId, ReceiptId } from "../../src/ids/Ids.ts"
import {
  balanced,
  type LedgerEntry,
  paidOutPostings,
  receiptRefundPostings,
  receivedPostings,
  sweptPostings
} from "../../src/ledger/Postings.ts"
import { Receipt, type ReceiptOutcome, refundableValue } from "../../src/receipt/Receipt.ts"

const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const buyer = "eip155:1:0x00000000000000000000000000000000000000Ab"
const deposit = "0x00000000000000000000000000000000000000d1"

const receipt = (outcome: ReceiptOutcome, value: bigint, expectedValue: bigint | null, id = "rcp_1") =>
  new Receipt({
    id: id as ReceiptId,
    chainId: "eip155:1",
    asset: usdc,
    txHash: "0xaa",
    logIndex: 0,
    blockNumber: 1,
    blockHash: "0xbb",
    blockTime: 1,
    from: buyer,
    value,
    reference: null,
    outcome,
    paymentId: outcome === "unmatched" ? null : "pay_1" as PaymentId,
    partnerId: outcome === "unmatched" ? null : "ptn_1" as PartnerId,
    mode: outcome === "unmatched" ? null : "sandbox",
    expectedValue,
    paymentStatus: null,
    recordedAt: 0,
    refund: null,
    reversedAt: null
  })

/** Balances per account kind (and address), as the entries leave them. */
const byKind = (entries: ReadonlyArray<LedgerEntry>) => {
  const sums: Record<string, bigint> = {}
  for (const { account, amount } of entries) {
    const key = account.kind === "deposit" ? `deposit:${account.address}` : account.kind
    sums[key] = (sums[key] ?? 0n) + amount
  }
  return sums
}

const collection = { kind: "collection" } as const

describe("posting rules", () => {
  it("a paid transfer: the collection address holds it, the merchant is owed it", () => {
    assert.deepStrictEqual(byKind(receivedPostings(receipt("paid", 100n, 100n), collection, "mer_1")), { collection: 100n, merchant: -100n })
  })

  it("an overpaid transfer at a deposit address: the merchant is owed what was asked, the buyer the excess", () => {
    assert.deepStrictEqual(byKind(receivedPostings(receipt("overpaid", 130n, 100n), { kind: "deposit", address: deposit.toUpperCase() }, "mer_1")), {
      [`deposit:${deposit}`]: 130n,
      merchant: -100n,
      refund_claim: -30n
    })
  })

  it("late and underpaid transfers are owed back to their sender; unmatched ones are the operator's until refunded", () => {
    assert.deepStrictEqual(byKind(receivedPostings(receipt("late", 100n, 100n), collection, "mer_1")), { collection: 100n, refund_claim: -100n })
    assert.deepStrictEqual(byKind(receivedPostings(receipt("underpaid", 40n, 100n), collection, "mer_1")), { collection: 100n - 60n, refund_claim: -40n })
    assert.deepStrictEqual(byKind(receivedPostings(receipt("unmatched", 7n, null), collection, null)), { collection: 7n, unmatched: -7n })
  })

  it("the transfer completing underpaid parts moves them from their senders' claims to the merchant", () => {
    const parts = [receipt("underpaid", 30n, 100n, "rcp_a"), receipt("underpaid", 30n, 70n, "rcp_b")]
    const entries = receivedPostings(receipt("paid", 40n, 40n, "rcp_c"), collection, "mer_1", parts)
    assert.deepStrictEqual(byKind(entries), { collection: 40n, merchant: -100n, refund_claim: 60n })
  })

  it("a merchant credit without a merchant is refused, never posted half", () => {
    assert.throws(() => receivedPostings(receipt("paid", 100n, 100n), collection, null))
  })

  it("payouts, receipt refunds and sweeps move what left or arrived", () => {
    assert.deepStrictEqual(byKind(paidOutPostings({ asset: usdc, value: 100n }, "ptn_1", "mer_1")), { collection: -100n, merchant: 100n })
    assert.deepStrictEqual(byKind(receiptRefundPostings(receipt("overpaid", 130n, 100n), 30n)), { collection: -30n, refund_claim: 30n })
    assert.deepStrictEqual(byKind(receiptRefundPostings(receipt("unmatched", 7n, null), 7n)), { collection: -7n, unmatched: 7n })
    assert.deepStrictEqual(byKind(sweptPostings(usdc, [{ address: deposit, value: 130n }])), { collection: 130n, [`deposit:${deposit}`]: -130n })
    assert.deepStrictEqual(sweptPostings(usdc, [{ address: deposit, value: 0n }]), [])
  })

  it("every arrival balances, and what is owed back is exactly the receipt's refundable value", () => {
    const outcomes: ReadonlyArray<ReceiptOutcome> = ["paid", "overpaid", "underpaid", "late", "unmatched"]
    fc.assert(fc.property(fc.constantFrom(...outcomes), fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }), (outcome, a, b) => {
      const value = outcome === "overpaid" ? (a > b ? a : b + 1n) : a
      const expected = outcome === "overpaid" ? (a > b ? b : a) : b
      const r = receipt(outcome, value, outcome === "unmatched" ? null : expected)
      const entries = receivedPostings(r, collection, outcome === "unmatched" ? null : "mer_1")
      const sums = byKind(entries)
      assert.isTrue(balanced(entries))
      assert.strictEqual(sums.collection, value)
      assert.strictEqual(-((sums.refund_claim ?? 0n) + (sums.unmatched ?? 0n)), refundableValue(r))
      assert.isTrue(entries.every((e) => e.amount !== 0n))
    }))
  })
})
