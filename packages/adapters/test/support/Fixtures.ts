/**
 * Domain values for adapter tests, with fresh ids from the `IdGenerator`.
 */
import { CredentialAdmin } from "@paygate/adapters"
import {
  CheckoutRedirect,
  IdGenerator,
  Merchant,
  MerchantRepository,
  type Mode,
  OutboxEvent,
  type Partner,
  Payment,
  type PaymentEventType,
  type Plan
} from "@paygate/domain"
import { planFixture } from "@paygate/domain/testing"
import { Effect } from "effect"

/** A new partner, stored. */
export const newPartner = (name = "Test partner"): Effect.Effect<Partner, never, CredentialAdmin> =>
  Effect.gen(function*() {
    const admin = yield* CredentialAdmin
    return yield* admin.createPartner({ name }).pipe(Effect.orDie)
  })

/** A new active merchant of `partner` in `mode`, stored. */
export const newMerchant = (
  partner: Partner,
  options: { readonly mode?: Mode; readonly name?: string; readonly createdAt?: number } = {}
): Effect.Effect<Merchant, never, IdGenerator | MerchantRepository> =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    const id = yield* ids.make("merchant")
    const merchant = new Merchant({
      id,
      partnerId: partner.id,
      mode: options.mode ?? "sandbox",
      name: options.name ?? `Shop ${id}`,
      email: null,
      iconUrl: null,
      deleted: false,
      createdAt: options.createdAt ?? 1_700_000_000_000,
      updatedAt: options.createdAt ?? 1_700_000_000_000
    })
    yield* (yield* MerchantRepository).insert(merchant).pipe(Effect.orDie)
    return merchant
  })

/** A new `requires_action` payment of `merchant` (not stored); `overrides` replace fields. */
export const newPayment = (
  merchant: Merchant,
  overrides: Partial<ConstructorParameters<typeof Payment>[0]> = {}
): Effect.Effect<Payment, never, IdGenerator> =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new Payment({
      id: yield* ids.make("payment"),
      partnerId: merchant.partnerId,
      merchantId: merchant.id,
      mode: merchant.mode,
      referenceId: "order-1",
      currency: "USD",
      value: 1999n,
      status: "requires_action",
      stateVersion: 1,
      checkout: new CheckoutRedirect({ successUrl: "https://shop.example/ok", errorUrl: "https://shop.example/ko" }),
      expiresAt: 1_700_000_900,
      commitment: null,
      cancelledReason: null,
      cancelledAt: null,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      ...overrides
    })
  })

/** A new active plan of `merchant` (not stored; its terms are `planFixture`'s); `overrides` replace fields. */
export const newPlan = (
  merchant: Merchant,
  overrides: Partial<ConstructorParameters<typeof Plan>[0]> = {}
): Effect.Effect<Plan, never, IdGenerator> =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return planFixture({
      id: yield* ids.make("plan"),
      partnerId: merchant.partnerId,
      merchantId: merchant.id,
      mode: merchant.mode,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      ...overrides
    })
  })

/** An outbox event reporting `payment` as it is. */
export const eventFor = (
  payment: Payment,
  type: PaymentEventType,
  stage: Record<string, unknown> = {}
): Effect.Effect<OutboxEvent, never, IdGenerator> =>
  Effect.gen(function*() {
    const ids = yield* IdGenerator
    return new OutboxEvent({
      id: yield* ids.make("event"),
      type,
      partnerId: payment.partnerId,
      paymentId: payment.id,
      payment,
      stage,
      createdAt: Math.floor(payment.updatedAt / 1000)
    })
  })
