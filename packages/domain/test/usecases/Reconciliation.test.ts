import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import type { OptionClaims } from "../../src/gateway/OptionId.ts"
import type { MerchantId, PartnerId, PaymentId, ReceiptId } from "../../src/ids/Ids.ts"
import { Commitment, Payment, SignedAuthorization } from "../../src/payment/Payment.ts"
import { type ObservedTransfer, Receipt, ReceiptRefund } from "../../src/receipt/Receipt.ts"
import { creditable, judge, quoteAt } from "../../src/usecases/Reconciliation.ts"

const expiresAt = 2_000_000_000
const asked = 12_500_000n

const payment = (patch: Partial<Payment> = {}) =>
  new Payment({
    id: "pay_01TEST" as PaymentId,
    partnerId: "ptn_01TEST" as PartnerId,
    merchantId: "mer_01TEST" as MerchantId,
    mode: "sandbox",
    referenceId: "order-1",
    currency: "USD",
    value: 1250n,
    status: "requires_action",
    stateVersion: 1,
    checkout: null,
    expiresAt,
    commitment: null,
    cancelledReason: null,
    cancelledAt: null,
    createdAt: (expiresAt - 900) * 1000,
    updatedAt: (expiresAt - 900) * 1000,
    ...patch
  })

const claims = (patch: Partial<OptionClaims> = {}): OptionClaims => ({
  paymentId: "pay_01TEST",
  account: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  value: asked.toString(),
  expiresAt: null,
  kind: "push",
  nonce: `0x${"ab".repeat(16)}`,
  quotedAt: expiresAt - 900,
  ...patch
})

const transfer = (value: bigint, blockTime: number, patch: Partial<ObservedTransfer> = {}): ObservedTransfer => ({
  chainId: "eip155:1",
  asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  txHash: `0x${"11".repeat(32)}`,
  logIndex: 0,
  blockNumber: 100,
  blockHash: `0x${"22".repeat(32)}`,
  blockTime,
  from: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  value,
  reference: `0x${"ab".repeat(16)}`,
  ...patch
})

const commitment = (patch: Partial<Commitment> = {}) =>
  new Commitment({
    kind: "push",
    account: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    tokenAmount: asked,
    fingerprint: "fp",
    txHash: `0x${"33".repeat(32)}`,
    authorization: null,
    reference: `0x${"ab".repeat(16)}`,
    walletName: "Wallet",
    confirmedAt: expiresAt - 600,
    ...patch
  })

describe("Reconciliation.judge", () => {
  it("while the payment waits, the amount decides: exact paid, more overpaid, less underpaid", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: expiresAt - 1 }), (value, blockTime) => {
        const outcome = judge(payment(), claims(), transfer(value, blockTime))
        assert.strictEqual(outcome, value === asked ? "paid" : value > asked ? "overpaid" : "underpaid")
      }),
      { examples: [[asked, 0], [asked + 1n, expiresAt - 1], [asked - 1n, 0], [0n, 0]] }
    )
  })

  it("underpaid parts already received count: a transfer is judged against what is still asked for", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: asked - 1n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), (credited, value) => {
        const rest = asked - credited
        const outcome = judge(payment(), claims(), transfer(value, expiresAt - 1), credited)
        assert.strictEqual(outcome, value === rest ? "paid" : value > rest ? "overpaid" : "underpaid")
      }),
      { examples: [[asked - 1n, 1n], [1n, asked - 1n], [asked / 2n, asked / 2n + 1n]] }
    )
  })

  it("a block at or after the payment's or the quote's expiry is late, whatever the amount", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 10_000 }), (value, after) => {
        assert.strictEqual(judge(payment(), claims(), transfer(value, expiresAt + after)), "late")
        const quoteExpiry = expiresAt - 300
        assert.strictEqual(judge(payment(), claims({ expiresAt: quoteExpiry }), transfer(value, quoteExpiry + after)), "late")
      })
    )
  })

  it("a payment that no longer waits (cancelled, paid by another transfer or authorization) makes any other transfer late", () => {
    const cancelled = payment({ status: "cancelled", cancelledReason: "cancelled_by_user", cancelledAt: expiresAt - 100 })
    const paidOtherwise = payment({ status: "succeeded", commitment: commitment() })
    for (const p of [cancelled, paidOtherwise]) assert.strictEqual(judge(p, claims(), transfer(asked, expiresAt - 10)), "late")
  })

  it("the payment's own transfer, by hash or by its authorization's nonce, is paid, even after expiry", () => {
    const own = payment({ status: "processing", commitment: commitment() })
    assert.strictEqual(judge(own, claims(), transfer(asked, expiresAt + 60, { txHash: `0x${"33".repeat(32)}` })), "paid")
    const nonce = `0x${"cd".repeat(32)}`
    const pulled = payment({
      status: "processing",
      commitment: commitment({
        kind: "pull",
        txHash: null,
        reference: null,
        authorization: new SignedAuthorization({ to: "0x0", validBefore: expiresAt, nonce, signature: "0x" })
      })
    })
    assert.strictEqual(judge(pulled, claims({ kind: "pull", nonce }), transfer(asked, expiresAt + 60, { reference: nonce })), "paid")
    // The nonce alone is not enough: another amount or another sender (the buyer signing the same nonce again) is late.
    assert.strictEqual(judge(pulled, claims({ kind: "pull", nonce }), transfer(asked - 1n, expiresAt - 60, { reference: nonce })), "late")
    assert.strictEqual(
      judge(pulled, claims({ kind: "pull", nonce }), transfer(asked, expiresAt - 60, { reference: nonce, from: "eip155:1:0x0000000000000000000000000000000000000001" })),
      "late"
    )
  })

  it("a transfer the watcher committed is that one log: another log of its transaction (a batch) is late", () => {
    const hash = `0x${"44".repeat(32)}`
    const watched = payment({
      status: "processing",
      commitment: commitment({ txHash: hash, fingerprint: `receipt:eip155:1:${hash}:3` })
    })
    assert.strictEqual(judge(watched, claims(), transfer(asked, expiresAt - 10, { txHash: hash, logIndex: 3 })), "paid")
    assert.strictEqual(judge(watched, claims(), transfer(asked, expiresAt - 10, { txHash: hash, logIndex: 4 })), "late")
  })

  it("a failed payment's authorization used after all is late (refundable), never paid", () => {
    const nonce = `0x${"cd".repeat(32)}`
    const failed = payment({
      status: "failed",
      commitment: commitment({
        kind: "pull",
        txHash: `0x${"44".repeat(32)}`,
        reference: null,
        authorization: new SignedAuthorization({ to: "0x0", validBefore: expiresAt, nonce, signature: "0x" })
      })
    })
    assert.strictEqual(judge(failed, claims({ kind: "pull", nonce }), transfer(asked, expiresAt - 60, { reference: nonce })), "late")
  })
})

describe("Reconciliation.creditable", () => {
  const asset = claims().asset
  const receipt = (id: string, value: bigint, patch: Partial<Receipt> = {}) =>
    new Receipt({
      ...transfer(value, expiresAt - 10),
      id: id as ReceiptId,
      outcome: "underpaid",
      paymentId: "pay_01TEST" as PaymentId,
      partnerId: "ptn_01TEST" as PartnerId,
      mode: "sandbox",
      expectedValue: asked,
      paymentStatus: "requires_action",
      recordedAt: 0,
      refund: null,
      reversedAt: null,
      ...patch
    })
  const refund = new ReceiptRefund({ status: "pending", value: 1n, requestedBy: "ptn_01TEST" as PartnerId, transfer: null, attempts: 0, version: 1, requestedAt: 0, updatedAt: 0 })

  it("counts the underpaid receipts of the token that are not being refunded", () => {
    const ids = creditable([
      receipt("rcp_a", 1_000_000n),
      receipt("rcp_b", 2_000_000n, { refund }),
      receipt("rcp_c", 3_000_000n, { asset: "eip155:1/erc20:0x0000000000000000000000000000000000000001" }),
      receipt("rcp_d", 4_000_000n, { outcome: "late" }),
      receipt("rcp_e", 500_000n)
    ], asset, asked).map((r) => r.id)
    assert.deepStrictEqual(ids, ["rcp_a", "rcp_e"])
  })

  it("none when they add up to what is asked or more (a re-quote lowered the amount): each stays refundable", () => {
    assert.deepStrictEqual(creditable([receipt("rcp_a", 6_000_000n), receipt("rcp_b", 6_500_000n)], asset, asked), [])
    assert.strictEqual(creditable([receipt("rcp_a", 6_000_000n), receipt("rcp_b", 6_499_999n)], asset, asked).length, 2)
  })
})

describe("Reconciliation.quoteAt", () => {
  const quoted = (quotedAt: number, value: string) => ({ optionId: `opt-${quotedAt}`, claims: claims({ kind: "deposit", quotedAt, value }) })
  const history = [quoted(1_000, "1"), quoted(1_300, "2"), quoted(1_600, "3")]
  it("a deposit's transfer is judged by the quote that held when it was mined", () => {
    assert.strictEqual(quoteAt(history, 1_299).pipe(Option.getOrThrow).claims.value, "1")
    assert.strictEqual(quoteAt(history, 1_300).pipe(Option.getOrThrow).claims.value, "2")
    assert.strictEqual(quoteAt(history, 9_999).pipe(Option.getOrThrow).claims.value, "3")
    // A block stamped a moment before the first quote (clocks differ): the first quote.
    assert.strictEqual(quoteAt(history, 999).pipe(Option.getOrThrow).claims.value, "1")
    assert.isTrue(Option.isNone(quoteAt([], 1_000)))
  })
})
