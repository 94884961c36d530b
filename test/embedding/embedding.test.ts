import { assert, describe, it } from "@effect/vitest"
import { CredentialAdmin, Database, Migrations, SqlPersistence } from "@paygate/adapters"
import { IdGenerator, type PartnerId, PaymentRepository, RefundRepository } from "@paygate/domain"
import { layerMemory, layerMemoryMerchants, layerMemoryRefunds, screeningList, scriptedChain } from "@paygate/domain/testing"
import { Effect, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { createPayRefund, useCases } from "./Host.ts"

// The chain and the screening are the host's to provide in both cases: a scripted chain that
// accepts every proof and reports every transaction succeeded, and an empty sanctions list.
const chainAndScreening = Layer.mergeAll(scriptedChain(), screeningList([]))

// What the host shows at each step, and what the ports hold afterwards.
const checkFlow = (partnerId: PartnerId) =>
  Effect.gen(function*() {
    const { confirmed, created, paid, refund } = yield* createPayRefund(partnerId)
    assert.strictEqual(created.status, "requires_action")
    assert.strictEqual(created.value, 1250n)
    assert.strictEqual(confirmed.status, "processing")
    assert.strictEqual(paid.status, "succeeded")
    assert.isNotNull(paid.commitment?.txHash ?? null, "the executor recorded the transaction")
    assert.strictEqual(refund.paymentId, created.id)
    assert.strictEqual(refund.status, "pending", "the worker sends it back on chain")
    const stored = yield* (yield* PaymentRepository).findById(created.id)
    assert.strictEqual(Option.getOrThrow(stored).status, "succeeded")
    const refunds = yield* RefundRepository
    assert.deepStrictEqual(Option.map(yield* refunds.findByPayment(created.id), (r) => r.id), Option.some(refund.id))
  })

describe("embedding the domain without the http package", () => {
  it.effect("creates, pays and refunds a payment over the in-memory adapters of @paygate/domain/testing", () =>
    Effect.gen(function*() {
      // In memory the partner is only an id.
      yield* checkFlow(yield* (yield* IdGenerator).make("partner"))
    }).pipe(Effect.provide(useCases.pipe(Layer.provideMerge(Layer.mergeAll(layerMemory(), layerMemoryMerchants(), layerMemoryRefunds(), chainAndScreening))))))

  it.effect("creates, pays and refunds a payment over the SQL adapters of @paygate/adapters (PGlite)", () =>
    Effect.gen(function*() {
      // On SQL a merchant belongs to a stored partner: the operator's CredentialAdmin creates it.
      const partner = yield* (yield* CredentialAdmin).createPartner({ name: "Embedded partner" })
      yield* checkFlow(partner.id)
    }).pipe(
      Effect.provide(useCases.pipe(Layer.provideMerge(Layer.mergeAll(SqlPersistence.layer, CredentialAdmin.layer, chainAndScreening).pipe(
        Layer.provide(IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto))),
        Layer.provideMerge(Migrations.layer.pipe(Layer.provideMerge(Database.layerMemory())))
      ))))
    ), 60_000)
})
