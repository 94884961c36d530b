/**
 * Payouts and succeeded payments for the payout and refund adapter tests.
 */
import { Commitment, type Payment, PaymentRepository, Payout, type PayoutKind, type Refund } from "@paygate/domain"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { newMerchant, newPartner, newPayment } from "./Fixtures.ts"

/** The payer of {@link succeededPayment}s. */
export const payer = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
/** The asset of {@link succeededPayment}s. */
export const usdc = "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

/** A succeeded payment of a new merchant, stored (updated `updatedAt`, when given). */
export const succeededPayment = (updatedAt = 1_700_000_100_000) =>
  Effect.gen(function*() {
    const merchant = yield* newMerchant(yield* newPartner())
    const payment = yield* newPayment(merchant, {
      status: "succeeded",
      stateVersion: 3,
      updatedAt,
      commitment: new Commitment({
        kind: "push",
        account: payer,
        asset: usdc,
        tokenAmount: 19_990_000n,
        fingerprint: "fp",
        // A transaction pays for one payment only.
        txHash: `0x${randomBytes(32).toString("hex")}`,
        authorization: null,
        reference: `0x${"01".repeat(16)}`,
        walletName: "Test wallet",
        confirmedAt: 1_700_000_050
      })
    })
    yield* (yield* PaymentRepository).insert(payment, [])
    return payment
  })

/** A new pending payout of `payment`: a settlement to a fixed destination, or `refund`'s. */
export const payoutOf = (payment: Payment, kind: PayoutKind, refund?: Refund): Payout =>
  new Payout({
    paymentId: payment.id,
    kind,
    leg: 0,
    refundId: refund?.id ?? null,
    asset: usdc,
    recipient: kind === "refund" ? payer : "eip155:8453:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    value: 19_990_000n,
    status: "pending",
    transfer: null,
    attempts: 0,
    lastError: null,
    version: 1,
    createdAt: 1_700_000_200_000,
    updatedAt: 1_700_000_200_000,
    completedAt: null
  })
