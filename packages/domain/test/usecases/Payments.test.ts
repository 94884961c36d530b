import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { MerchantId, PartnerId } from "../../src/ids/Ids.ts"
import { CheckoutRedirect } from "../../src/payment/Payment.ts"
import { PayableCurrencies } from "../../src/ports/PayableCurrencies.ts"
import { layerMemory, makeMemoryStore } from "../../src/testing/MemoryStore.ts"
import { oneMerchant, seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { PaymentSettings } from "../../src/usecases/PaymentSettings.ts"
import { type CreatePaymentInput, Payments } from "../../src/usecases/Payments.ts"
import { checkoutWarning } from "../../src/usecases/CreateRules.ts"

const store = makeMemoryStore()
const layer = Payments.layer.pipe(
  Layer.provide(IdGenerator.layer),
  Layer.provide([layerMemory(store), oneMerchant("ptn_1" as PartnerId, "mer_1" as MerchantId), seededSecureRandom(3)])
)

const liveLayer = Payments.layer.pipe(
  Layer.provide(IdGenerator.layer),
  Layer.provide([layerMemory(makeMemoryStore()), oneMerchant("ptn_1" as PartnerId, "mer_1" as MerchantId, "live"), seededSecureRandom(3)])
)

const base: CreatePaymentInput = {
  partnerId: "ptn_1" as PartnerId,
  merchantId: "mer_1" as MerchantId,
  mode: "sandbox",
  amount: { unit: "iso4217/USD", value: "1050" },
  referenceId: "order-42"
}

const createCode = (input: Partial<CreatePaymentInput>) =>
  Payments.use((p) => p.create({ ...base, ...input })).pipe(
    Effect.map(() => "ok"),
    Effect.catch((e) => Effect.succeed(errorCode(e)))
  )

// A create's payment, built and not stored, with the warnings the API shows with it.
const drafted = (payments: Payments["Service"], input: CreatePaymentInput) =>
  Effect.map(payments.validate(input), (payment) => ({
    payment,
    warnings: [checkoutWarning(input.mode, input.checkout)].filter((warning) => warning !== undefined)
  }))

describe("Payments.create", () => {
  it.effect("creates a pending payment with its payment.created event", () =>
    Effect.gen(function*() {
      const payment = yield* Payments.use((p) => p.create(base))
      assert.strictEqual(payment.status, "requires_action")
      assert.strictEqual(payment.value, 1050n)
      assert.strictEqual(payment.currency, "USD")
      assert.strictEqual(payment.stateVersion, 1)
      assert.isNull(payment.checkout)
      const events = store.events.filter((e) => e.paymentId === payment.id)
      assert.deepStrictEqual(events.map((e) => e.type), ["payment.created"])
    }).pipe(Effect.provide(layer)))

  it.effect("validate builds the payment a create would store and writes nothing", () =>
    Effect.gen(function*() {
      const before = { payments: store.payments.size, events: store.events.length }
      const payment = yield* Payments.use((p) => p.validate({ ...base, referenceId: "order-43" }))
      assert.strictEqual(payment.status, "requires_action")
      assert.strictEqual(payment.referenceId, "order-43")
      assert.deepStrictEqual({ payments: store.payments.size, events: store.events.length }, before)
    }).pipe(Effect.provide(layer)))

  it.effect.each([
    ["iso4217/usd", "1050"],
    ["iso4217/ABC", "1050"],
    ["iso4217/XAU", "1050"],
    ["iso4217/XXX", "1050"],
    ["caip19/eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "1050"],
    ["USD", "1050"],
    ["iso4217/USD", "0"],
    ["iso4217/USD", "01"],
    ["iso4217/USD", "-5"],
    ["iso4217/USD", "10.50"],
    ["iso4217/USD", "1e3"],
    ["iso4217/USD", "1000000000000000000"]
  ])("rejects amount %j with params_validation", ([unit, value]) =>
    Effect.gen(function*() {
      assert.strictEqual(yield* createCode({ amount: { unit: unit!, value: value! } }), "params_validation")
    }).pipe(Effect.provide(layer)))

  it.effect("a value in major units is refused with the minor-unit value it meant", () =>
    Effect.gen(function*() {
      const message = (unit: string, value: string) =>
        Payments.use((p) => p.create({ ...base, amount: { unit, value } })).pipe(Effect.flip, Effect.map((e) => e.message))
      assert.strictEqual(
        yield* message("iso4217/USD", "10.50"),
        `amount.value is an integer in USD minor units (1/100 of a USD), not a decimal: 10.50 USD is "1050".`
      )
      assert.include(yield* message("iso4217/USD", "10.5"), `10.5 USD is "1050"`)
      assert.include(yield* message("iso4217/JPY", "1500.00"), `1500.00 JPY is "1500"`)
      assert.include(yield* message("iso4217/USD", "1.005"), "has more decimals than USD has (2)")
      // A value that would be refused anyway gets the value rule's own message, not a "meant" value.
      assert.include(yield* message("iso4217/USD", "0.00"), "value must be a positive integer")
      assert.include(yield* message("iso4217/USD", "99999999999999999.99"), "value must be a positive integer")
    }).pipe(Effect.provide(layer)))

  it.effect("a currency no configured token can be priced in is refused at creation (PayableCurrencies)", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* createCode({ amount: { unit: "iso4217/EUR", value: "1050" } }), "params_validation")
      const refused = yield* Payments.use((p) => p.create({ ...base, amount: { unit: "iso4217/EUR", value: "1050" } })).pipe(Effect.flip)
      assert.strictEqual(refused.message, "No token this service accepts can be priced in EUR, so a buyer could not pay it; create payments in GBP, USD.")
      assert.strictEqual(yield* createCode({}), "ok")
    }).pipe(Effect.provide(layer), Effect.provideService(PayableCurrencies, { currencies: { sandbox: new Set(["USD", "GBP"]), live: new Set(["USD"]) } })))

  it.effect("a payment of a mode no configured network serves is refused at creation, not created unpayable", () =>
    Effect.gen(function*() {
      const sandbox = yield* Payments.use((p) => p.create(base)).pipe(Effect.flip)
      assert.strictEqual(errorCode(sandbox), "params_validation")
      assert.match(sandbox.message, /^This service accepts no token on a test network, so a sandbox payment could never be paid/)
      // Tokens on real networks take live payments, in their currencies: the rule lets it through to the
      // merchant lookup (the test merchant is a sandbox one).
      assert.strictEqual(yield* createCode({ mode: "live" }), "merchant_not_found")
      const euros = yield* Payments.use((p) => p.create({ ...base, mode: "live", amount: { unit: "iso4217/EUR", value: "1050" } })).pipe(Effect.flip)
      assert.match(euros.message, /create payments in USD\.$/)
    }).pipe(Effect.provide(layer), Effect.provideService(PayableCurrencies, { currencies: { sandbox: new Set<string>(), live: new Set(["USD"]) } })))

  it.effect("takes its settings when built: a call under other settings (an API request runs without the application's) keeps them", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const created = yield* payments.create({ ...base, referenceId: "built-settings" }).pipe(
        Effect.provideService(PaymentSettings, { lifetimeSeconds: 60, quoteTtlSeconds: 60 }),
        Effect.provideService(PayableCurrencies, { currencies: undefined })
      )
      assert.strictEqual(created.expiresAt - Math.floor(created.createdAt / 1000), 600)
      const euros = yield* payments.create({ ...base, amount: { unit: "iso4217/EUR", value: "1050" } }).pipe(
        Effect.provideService(PayableCurrencies, { currencies: undefined }),
        Effect.flip
      )
      assert.strictEqual(errorCode(euros), "params_validation")
    }).pipe(
      Effect.provide(layer),
      Effect.provideService(PaymentSettings, { lifetimeSeconds: 600, quoteTtlSeconds: 60 }),
      Effect.provideService(PayableCurrencies, { currencies: { sandbox: new Set(["USD"]), live: new Set(["USD"]) } })
    ))

  it.effect("a checkout without two HTTPS URLs creates the payment without redirects and says why in a warning", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const draft = (checkout: CreatePaymentInput["checkout"]) => drafted(payments, { ...base, checkout })
      assert.deepStrictEqual((yield* draft(undefined)).warnings, [])
      assert.deepStrictEqual((yield* draft({ successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/ko" })).warnings, [])
      const http = yield* draft({ successUrl: "http://shop.example/ok", errorUrl: "https://shop.example/ko" })
      assert.isNull(http.payment.checkout)
      assert.deepStrictEqual(http.warnings, [
        "Redirect disabled for this payment: checkout.successUrl is not an HTTPS or local URL; the checkout shows its own result pages (both URLs must be HTTPS, or http://localhost or http://127.0.0.1 in the sandbox, to redirect)."
      ])
      assert.include((yield* draft({ successUrl: "https://shop.example/ok" })).warnings[0], "checkout.errorUrl is missing")
    }).pipe(Effect.provide(layer)))

  it.effect("a sandbox payment redirects to http://localhost and http://127.0.0.1 (any port and path); a live one only to HTTPS", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const local = { successUrl: "http://localhost:5173/shop/thanks?x=1", errorUrl: "http://127.0.0.1:8080/sorry" }
      const sandbox = yield* drafted(payments, { ...base, checkout: local })
      assert.deepStrictEqual(sandbox.warnings, [])
      assert.deepStrictEqual(sandbox.payment.checkout, new CheckoutRedirect(local))
      assert.deepStrictEqual((yield* drafted(payments, { ...base, checkout: { successUrl: "http://localhost/", errorUrl: "http://127.0.0.1/" } })).warnings, [])

      // Only those two hosts: not another plain-HTTP name, nor a look-alike or another scheme.
      for (const url of ["http://localhost.shop.example/ok", "http://127.0.0.2/ok", "http://[::1]/ok", "ftp://localhost/ok", "http://shop.example/ok"]) {
        const refused = yield* drafted(payments, { ...base, checkout: { successUrl: url, errorUrl: "http://localhost/ko" } })
        assert.isNull(refused.payment.checkout, url)
        assert.include(refused.warnings[0], "checkout.successUrl is not an HTTPS or local URL", url)
      }
    }).pipe(Effect.provide(layer)))

  it.effect("a live payment keeps requiring HTTPS redirect URLs", () =>
    Effect.gen(function*() {
      const local = { successUrl: "http://localhost:5173/shop/thanks?x=1", errorUrl: "http://127.0.0.1:8080/sorry" }
      const live = yield* Payments.use((p) => drafted(p, { ...base, mode: "live", checkout: local }))
      assert.isNull(live.payment.checkout)
      assert.deepStrictEqual(live.warnings, [
        "Redirect disabled for this payment: checkout.successUrl is not an HTTPS URL and checkout.errorUrl is not an HTTPS URL; the checkout shows its own result pages (both URLs must be HTTPS to redirect)."
      ])
      const https = yield* Payments.use((p) => drafted(p, { ...base, mode: "live", checkout: { successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/ko" } }))
      assert.deepStrictEqual(https.warnings, [])
    }).pipe(Effect.provide(liveLayer)))

  it.effect("refuses unknown, malformed and foreign merchants with merchant_not_found, after body rules", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* createCode({ merchantId: "mer_nope" }), "merchant_not_found")
      assert.strictEqual(yield* createCode({ merchantId: "not-an-id" }), "merchant_not_found")
      assert.strictEqual(yield* createCode({ partnerId: "ptn_2" as PartnerId }), "merchant_not_found")
      assert.strictEqual(yield* createCode({ mode: "live" }), "merchant_not_found")
      assert.strictEqual(yield* createCode({ merchantId: "mer_nope", referenceId: "" }), "params_validation")
    }).pipe(Effect.provide(layer)))

  it.effect("accepts the largest value and zero-exponent currencies", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* createCode({ amount: { unit: "iso4217/USD", value: "999999999999999999" } }), "ok")
      assert.strictEqual(yield* createCode({ amount: { unit: "iso4217/JPY", value: "1500" } }), "ok")
    }).pipe(Effect.provide(layer)))

  it.effect("requires a referenceId of 1 to 255 characters", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* createCode({ referenceId: "" }), "params_validation")
      assert.strictEqual(yield* createCode({ referenceId: "x".repeat(256) }), "params_validation")
      assert.strictEqual(yield* createCode({ referenceId: "x".repeat(255) }), "ok")
    }).pipe(Effect.provide(layer)))

  it.effect("enables redirects only when both URLs are valid HTTPS", () =>
    Effect.gen(function*() {
      const redirect = (checkout: CreatePaymentInput["checkout"]) =>
        Payments.use((p) => p.create({ ...base, checkout })).pipe(Effect.map((p) => p.checkout))
      const both = yield* redirect({ successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/err" })
      assert.deepStrictEqual({ ...both }, { successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/err" })
      assert.isNull(yield* redirect({ successUrl: "https://shop.example/ok" }))
      assert.isNull(yield* redirect({ successUrl: "http://shop.example/ok", errorUrl: "https://shop.example/err" }))
      assert.isNull(yield* redirect({ successUrl: "not a url", errorUrl: "https://shop.example/err" }))
      assert.isNull(yield* redirect({}))
    }).pipe(Effect.provide(layer)))
})
