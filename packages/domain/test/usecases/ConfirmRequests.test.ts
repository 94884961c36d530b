import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Mac } from "effect/crypto"
import { TestClock } from "effect/testing"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import type { Confirmation } from "../../src/gateway/Confirmation.ts"
import { type OptionClaims, OptionIds } from "../../src/gateway/OptionId.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId } from "../../src/ids/Ids.ts"
import { layerTestDataCollection } from "../../src/testing/DataCollectionPorts.ts"
import { Commitment, Payment } from "../../src/payment/Payment.ts"
import type { PayableAsset } from "../../src/ports/AssetCatalog.ts"
import { PaymentRepository } from "../../src/ports/PaymentRepository.ts"
import { QuoteStore } from "../../src/ports/QuoteStore.ts"
import { catalogOf, layerMemoryQuotes } from "../../src/testing/GatewayPorts.ts"
import { layerMemory } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, screeningList, scriptedChain, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import type { Access } from "../../src/usecases/Access.ts"
import { ConfirmRequests } from "../../src/usecases/ConfirmRequests.ts"
import { PaymentCommitments } from "../../src/usecases/PaymentCommitments.ts"
import { Payments } from "../../src/usecases/Payments.ts"
import { usdcOnBase as usdc } from "./GatewayFixtures.ts"

const partnerId = "ptn_confirm" as PartnerId
const merchantId = "mer_confirm" as MerchantId
const access: Access = { mode: "sandbox" }
const buyer = "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const signature = `0x${"ab".repeat(65)}`
// A token without EIP-3009: paid by a transfer the wallet sends (push).
const pushed: PayableAsset = { ...usdc, assetId: "eip155:8453/erc20:0x4200000000000000000000000000000000000006", kind: "push" }

/** What the payment repository saw: its reads, and a writer that changes the payment just before the confirm's first write. */
interface Watch {
  reads: number
  interfere: ((repo: PaymentRepository["Service"], payment: Payment) => Effect.Effect<void>) | undefined
}

// The repository the confirms write through, watched; the rest of the layer reads the store itself.
const watched = (watch: Watch) =>
  Layer.effect(PaymentRepository, Effect.map(Effect.service(PaymentRepository), (repo) => PaymentRepository.of({
    ...repo,
    findById: (id) => Effect.suspend(() => {
      watch.reads++
      return repo.findById(id)
    }),
    update: (next, events, gas) =>
      Effect.suspend(() => {
        const interfere = watch.interfere
        watch.interfere = undefined
        return Effect.andThen(interfere === undefined ? Effect.void : interfere(repo, next), repo.update(next, events, gas))
      })
  })))

const layer = (watch: Watch = { reads: 0, interfere: undefined }) =>
  ConfirmRequests.layer.pipe(
    Layer.provideMerge(OptionIds.layer(new Uint8Array(32).fill(5)).pipe(Layer.provide(Mac.layerWebCrypto))),
    Layer.provide(PaymentCommitments.layer.pipe(Layer.provide(layerTestDataCollection()), Layer.provide(watched(watch)))),
    Layer.provideMerge(Payments.layer),
    Layer.provideMerge(layerMemoryQuotes()),
    Layer.provide([catalogOf([usdc, pushed]), scriptedChain(), screeningList([])]),
    Layer.provide(IdGenerator.layer),
    Layer.provideMerge(layerMemory()),
    Layer.provide(oneMerchant(partnerId, merchantId)),
    Layer.provideMerge(seededSecureRandom(7))
  )

const newPayment = Payments.use((p) =>
  p.create({ partnerId, merchantId, mode: "sandbox", amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "c" })
)

/** An option issued (and quoted) for `paymentId`: USDC pulled from `account`, no rate unless `expiresAt`. */
const optionFor = (paymentId: string, kind: OptionClaims["kind"] = "pull", quote: Partial<OptionClaims> = {}) =>
  Effect.gen(function*() {
    const claims: OptionClaims = {
      paymentId,
      account: buyer,
      asset: usdc.assetId,
      value: "10500000",
      expiresAt: null,
      kind,
      nonce: `0x${"01".repeat(32)}`,
      quotedAt: 1_800_000_000,
      ...quote
    }
    const optionId = yield* OptionIds.use((ids) => ids.issue(claims))
    yield* QuoteStore.use((quotes) => quotes.save({ optionId, claims }))
    return optionId
  })

const confirmation = (optionId: string, data: ReadonlyArray<string> = [signature]): Confirmation => ({
  optionId,
  results: [{ type: "walletRpc", data }],
  collectedData: null
})

// The same option id with the unused low bits of its tag's last base64url digit set: other text, the same bytes.
const base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const reencodedTag = (optionId: string) => optionId.slice(0, -1) + base64url[base64url.indexOf(optionId.slice(-1)) ^ 1]

const confirm = (paymentId: string, value: Confirmation) =>
  ConfirmRequests.use((c) => c.confirm(access, paymentId, value, "Test Wallet"))

const codeOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed(errorCode(e as never))))

describe("ConfirmRequests", () => {
  it.effect("confirms a pull option with the wallet's signature; an identical repeat is the same confirm", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const payment = yield* newPayment
      const optionId = yield* optionFor(payment.id)
      const first = yield* confirm(payment.id, confirmation(optionId))
      assert.strictEqual(first.payment.status, "processing")
      assert.strictEqual(first.payment.commitment?.walletName, "Test Wallet")
      assert.strictEqual(first.optionAmount.value, "10500000")
      const again = yield* confirm(payment.id, confirmation(optionId))
      assert.strictEqual(again.payment.commitment?.fingerprint, first.payment.commitment?.fingerprint)
      // The same signature in capitals, and the same option id with its tag re-encoded, are the same confirm.
      const shouted = yield* confirm(payment.id, confirmation(optionId, [`0x${"AB".repeat(65)}`]))
      assert.strictEqual(shouted.payment.commitment?.fingerprint, first.payment.commitment?.fingerprint)
      const reencoded = yield* confirm(payment.id, confirmation(reencodedTag(optionId)))
      assert.strictEqual(reencoded.payment.commitment?.fingerprint, first.payment.commitment?.fingerprint)
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(optionId, [`0x${"cd".repeat(65)}`]))), "invalid_state")
    }).pipe(Effect.provide(layer())))

  it.effect("a push confirm whose transfer the chain watcher recorded first is answered as a repeat, not refused", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const payment = yield* newPayment
      const reference = `0x${"02".repeat(16)}`
      const optionId = yield* optionFor(payment.id, "push", { asset: pushed.assetId, nonce: reference })
      const txHash = `0x${"ef".repeat(32)}`
      // The watcher saw the transfer (with the option's reference) before the wallet's confirm came.
      const seen = new Payment({
        ...payment,
        status: "processing",
        stateVersion: payment.stateVersion + 1,
        commitment: new Commitment({
          kind: "push",
          account: buyer,
          asset: pushed.assetId,
          tokenAmount: 10_500_000n,
          fingerprint: "receipt:the watcher's",
          txHash,
          authorization: null,
          reference,
          walletName: "",
          confirmedAt: 1_800_000_000
        })
      })
      assert.isTrue(yield* PaymentRepository.use((repo) => repo.update(seen, [])))
      const answered = yield* confirm(payment.id, confirmation(optionId, [txHash.toUpperCase().replace("0X", "0x")]))
      assert.strictEqual(answered.payment.status, "processing")
      assert.strictEqual(answered.payment.commitment?.fingerprint, "receipt:the watcher's")
      // Another transaction is another confirm.
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(optionId, [`0x${"aa".repeat(32)}`]))), "invalid_state")
    }).pipe(Effect.provide(layer())))

  it.effect("only the latest quote is confirmable: a refreshed one, or a cheaper one made before another account's, is quote_expired", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const rated = { expiresAt: 1_800_000_300 }
      // Refreshed: the first quote is cheaper than the second, both unexpired.
      const payment = yield* newPayment
      const cheap = yield* optionFor(payment.id, "pull", { ...rated, value: "10400000", nonce: `0x${"02".repeat(32)}` })
      const dear = yield* optionFor(payment.id, "pull", { ...rated, value: "10600000", nonce: `0x${"03".repeat(32)}` })
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(cheap))), "quote_expired")
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(dear))), "ok")
      // Another account quoted later at more tokens: this account's older, cheaper quote is no longer on offer.
      const other = yield* newPayment
      const mine = yield* optionFor(other.id, "pull", { ...rated, value: "10400000", nonce: `0x${"04".repeat(32)}` })
      yield* optionFor(other.id, "pull", { ...rated, value: "10600000", nonce: `0x${"05".repeat(32)}`, account: `${buyer.slice(0, -1)}0` })
      assert.strictEqual(yield* codeOf(confirm(other.id, confirmation(mine))), "quote_expired")
      // Without a rate every quote asks the same: any account's latest stays confirmable.
      const pegged = yield* newPayment
      const first = yield* optionFor(pegged.id, "pull", { nonce: `0x${"06".repeat(32)}` })
      yield* optionFor(pegged.id, "pull", { nonce: `0x${"07".repeat(32)}`, account: `${buyer.slice(0, -1)}0` })
      assert.strictEqual(yield* codeOf(confirm(pegged.id, confirmation(first))), "ok")
    }).pipe(Effect.provide(layer())))

  it.effect("refuses another payment's option and a deposit option (invalid_params)", () =>
    Effect.gen(function*() {
      const payment = yield* newPayment
      const other = yield* newPayment
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(yield* optionFor(other.id)))), "invalid_params")
      assert.strictEqual(yield* codeOf(confirm(payment.id, confirmation(yield* optionFor(payment.id, "deposit")))), "invalid_params")
    }).pipe(Effect.provide(layer())))

  it.effect("needs exactly one walletRpc result with one 0x value (params_validation)", () =>
    Effect.gen(function*() {
      const payment = yield* newPayment
      const optionId = yield* optionFor(payment.id)
      const refused = [
        { ...confirmation(optionId), results: [] },
        { ...confirmation(optionId), results: [...confirmation(optionId).results, ...confirmation(optionId).results] },
        confirmation(optionId, [signature, signature]),
        confirmation(optionId, ["not hex"])
      ]
      for (const value of refused) assert.strictEqual(yield* codeOf(confirm(payment.id, value)), "params_validation")
    }).pipe(Effect.provide(layer())))

  it.effect("decides on the payment it read: one read when nothing else writes it; after a lost race, reads it again", () => {
    const watch: Watch = { reads: 0, interfere: undefined }
    return Effect.gen(function*() {
      yield* TestClock.setTime(1_800_000_000_000)
      const payment = yield* newPayment
      const first = yield* confirm(payment.id, confirmation(yield* optionFor(payment.id)))
      assert.strictEqual(first.payment.status, "processing")
      assert.strictEqual(watch.reads, 1)

      // Another writer cancels the payment after the confirm read it: the confirm's write loses, it reads
      // the payment again, and refuses as for a cancelled payment.
      const other = yield* newPayment
      const optionId = yield* optionFor(other.id)
      watch.reads = 0
      watch.interfere = (repo, next) =>
        Effect.orDie(Effect.asVoid(repo.update(new Payment({ ...next, status: "cancelled", commitment: null, cancelledReason: "cancelled_by_user", cancelledAt: 1_800_000_000 }), [])))
      assert.strictEqual(yield* codeOf(confirm(other.id, confirmation(optionId))), "invalid_state")
      assert.strictEqual(watch.reads, 2)
      assert.strictEqual((yield* Payments.use((p) => p.find(access, other.id))).status, "cancelled")
    }).pipe(Effect.provide(layer(watch)))
  })
})
