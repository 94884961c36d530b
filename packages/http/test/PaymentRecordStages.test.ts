import { Payment, type PaymentId, PaymentRepository, Payout, PayoutRepository, SignedTransfer } from "@paygate/domain"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { paymentRecords } from "../src/server/PaymentsHandlers.ts"
import { pglite, unique, useTestServer } from "../../../test/support/TestServer.ts"

// A settlement that completes between a record's read of its payment and of its stages (it bumps the
// payment's version in the same transaction) must not show under the payment's previous version.
describe("payment records with stages", () => {
  const server = useTestServer(pglite)

  it("shows a settlement that completed while the record was read under the payment's new version", async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.sandbox)
    const { paymentId } = await server.payment(partner.sandbox, merchantId, unique("order"))
    await server.succeed(paymentId)

    const record = await server.run(Effect.gen(function*() {
      const payments = yield* PaymentRepository
      const payouts = yield* PayoutRepository
      const read = Option.getOrThrow(yield* payments.findById(paymentId as PaymentId))
      const completed = new Payout({
        paymentId: read.id,
        kind: "settlement",
        leg: 0,
        refundId: null,
        asset: read.commitment!.asset,
        recipient: read.commitment!.account,
        value: 1n,
        status: "completed",
        transfer: new SignedTransfer({ txHash: `0x${"ab".repeat(32)}`, raw: "0x" }),
        attempts: 1,
        lastError: null,
        version: 2,
        createdAt: read.updatedAt,
        updatedAt: read.updatedAt,
        completedAt: read.updatedAt
      })
      // The settlement completes (and the payment moves to its next version) as the record first reads it.
      let completedMeanwhile = false
      const completing: PayoutRepository["Service"] = {
        ...payouts,
        listByPayment: (id) =>
          Effect.gen(function*() {
            if (!completedMeanwhile) {
              completedMeanwhile = yield* Effect.orDie(payments.update(new Payment({ ...read, stateVersion: read.stateVersion + 1 }), []))
            }
            return id === read.id ? [completed] : []
          })
      }
      const records = yield* paymentRecords.pipe(Effect.provideService(PayoutRepository, completing))
      const answered = (yield* records([read]))[0]!
      return { read, completedMeanwhile, answered }
    }))

    expect(record.completedMeanwhile).toBe(true)
    expect(record.answered.settlement?.status).toBe("completed")
    expect(record.answered.stateVersion).toBe(record.read.stateVersion + 1)
  })
})
