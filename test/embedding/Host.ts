/**
 * A small host that embeds the domain: it uses `@paygate/domain` by its package name, no HTTP. It
 * creates a merchant and a payment, pays it (a signed EIP-3009 authorization confirmed, then the
 * executor's steps until the chain's verdict) and refunds it, over whatever ports it is given:
 * the in-memory adapters of `@paygate/domain/testing` or the SQL ones of `@paygate/adapters`.
 *
 * @module
 */
import {
  type ChainGateway,
  PaymentCommitments,
  Executions,
  IdGenerator,
  type MerchantRepository,
  Merchants,
  type PartnerId,
  type PaymentRepository,
  Payments,
  type RefundRepository,
  NetworkModes,
  Refunds,
  type SanctionsScreening
} from "@paygate/domain"
import { layerTestDataCollection } from "@paygate/domain/testing"
import { Effect, Layer } from "effect"
import { SecureRandom } from "effect/crypto"

/** The ports a host provides: where payments, merchants and refunds are kept, the chain and the screening. */
export type HostPorts = PaymentRepository | MerchantRepository | RefundRepository | ChainGateway | SanctionsScreening

/** The use cases this host calls, over the {@link HostPorts} it provides. */
export const useCases = Layer.mergeAll(
  Merchants.layer,
  Refunds.layer,
  Executions.layer,
  PaymentCommitments.layer.pipe(Layer.provide(layerTestDataCollection()))
).pipe(
  Layer.provideMerge(Payments.layer),
  Layer.provideMerge(IdGenerator.layer),
  Layer.provide(SecureRandom.layerWebCrypto),
  // Which networks are test networks is the host's to say: sandbox payments use only those.
  Layer.provide(Layer.succeed(NetworkModes, { modeOf: (chainId) => (chainId === sepolia ? "sandbox" : undefined) }))
)

const sepolia = "eip155:11155111"
const buyer = `${sepolia}:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`
const usdc = `${sepolia}/erc20:0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238`

/**
 * Creates, pays and refunds one payment of 12.50 USD for a merchant of `partnerId` (the host's
 * tenant, kept wherever the host keeps partners); answers what a host would show at each step.
 */
export const createPayRefund = (partnerId: PartnerId) => Effect.gen(function*() {
  const access = { partnerId, mode: "sandbox" as const }
  const merchant = yield* (yield* Merchants).create(access, { merchantName: "Corner Coffee" })
  const payments = yield* Payments
  const created = yield* payments.create({
    ...access,
    merchantId: merchant.id,
    amount: { unit: "iso4217/USD", value: "1250" },
    referenceId: "order-1"
  })
  // The buyer's wallet signed an authorization for 12.50 USDC (6 decimals) to the collection address.
  const confirmed = yield* (yield* PaymentCommitments).confirm(access, created.id, {
    option: { account: buyer, asset: usdc, tokenAmount: 12_500_000n, quoteExpiresAt: null },
    proof: (payment) => ({
      _tag: "Authorization",
      account: buyer,
      asset: usdc,
      to: "0x000000000000000000000000000000000000c011",
      value: 12_500_000n,
      validBefore: payment.expiresAt,
      nonce: `0x${"01".padStart(64, "0")}`,
      signature: "0x5167"
    }),
    fingerprint: "option-1",
    collectedData: null,
    walletName: "Embedded wallet"
  })
  // The executor's job: submit the authorization, then follow the transaction to its outcome.
  const executions = yield* Executions
  let step = yield* executions.advance(created.id)
  for (let i = 0; step !== "final" && i < 10; i++) step = yield* executions.advance(created.id)
  const paid = yield* payments.find(access, created.id)
  const refund = yield* (yield* Refunds).request(access, created.id)
  return { created, confirmed, paid, refund }
})
