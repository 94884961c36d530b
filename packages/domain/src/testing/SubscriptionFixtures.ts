import type { MerchantId, PartnerId, PlanId, SubscriptionId } from "../ids/Ids.ts"
import { Plan } from "../subscription/Plan.ts"
import { SignedPermit, Subscription } from "../subscription/Subscription.ts"
import { SubscriptionTerms } from "../subscription/SubscriptionTerms.ts"

type Fields<A> = Partial<ConstructorParameters<new(fields: A) => unknown>[0]>

/**
 * A subscription for tests, `subscribing` with a fresh permit: 10 tokens (6 decimals) every 30 days
 * for a year, from Unix second 1,800,000,000. `terms` and the other fields override the defaults.
 */
export const subscriptionFixture = (
  fields: Fields<ConstructorParameters<typeof Subscription>[0]> = {},
  terms: Fields<ConstructorParameters<typeof SubscriptionTerms>[0]> = {}
): Subscription =>
  new Subscription({
    id: "sub_1" as SubscriptionId,
    planId: "pln_1" as PlanId,
    partnerId: "ptn_1" as PartnerId,
    merchantId: "mer_1" as MerchantId,
    mode: "sandbox",
    terms: new SubscriptionTerms({
      payer: "eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      receiver: "eip155:8453:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      asset: "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      amountPerPeriod: 10_000_000n,
      periodSeconds: 30 * 86_400,
      start: 1_800_000_000,
      periods: 12,
      salt: `0x${"5a".repeat(32)}`,
      ...terms
    }),
    permit: new SignedPermit({ signature: `0x${"ab".repeat(65)}`, sigDeadline: 1_800_000_900 }),
    subscribeTx: null,
    status: "subscribing",
    endedReason: null,
    cancelledBy: null,
    cancelTx: null,
    closedOnChain: false,
    replacedBy: null,
    endPeriod: null,
    skipUntil: null,
    nextCheckAt: 0,
    version: 1,
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_000,
    ...fields
  })

/**
 * The plan of {@link subscriptionFixture}'s default subscription, active and without a trial: 10
 * tokens (6 decimals) every 30 days for a year. The fields given override the defaults.
 */
export const planFixture = (fields: Fields<ConstructorParameters<typeof Plan>[0]> = {}): Plan =>
  new Plan({
    id: "pln_1" as PlanId,
    partnerId: "ptn_1" as PartnerId,
    merchantId: "mer_1" as MerchantId,
    mode: "sandbox",
    name: "Monthly",
    unit: "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    value: 10_000_000n,
    periodSeconds: 30 * 86_400,
    trialSeconds: 0,
    periods: 12,
    active: true,
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_000,
    ...fields
  })
