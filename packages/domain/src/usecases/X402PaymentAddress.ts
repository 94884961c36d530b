import { Clock, Context, Effect, Layer, Option } from "effect"
import { keccak256 } from "../caip/Keccak256.ts"
import type { PaymentNotFound } from "../errors/DomainErrors.ts"
import type { Payment } from "../payment/Payment.ts"
import { AssetCatalog, isEip3009 } from "../ports/AssetCatalog.ts"
import { ChainGateway } from "../ports/ChainGateway.ts"
import { NetworkModes } from "../ports/NetworkModes.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { quotePayment } from "../quote/Quote.ts"
import { exactScheme, X402Reason, type X402Payment, type X402Requirements, type X402Settlement } from "../x402/X402Terms.ts"
import { PaymentCommitments } from "./PaymentCommitments.ts"
import { nowSeconds } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"
import { makeX402Checks, refuse, type X402Refusal } from "./X402Checks.ts"
import { X402Settings, x402WalletName } from "./X402Facilitator.ts"
import { x402Outcome } from "./X402Outcome.ts"

/** What a payment's x402 address answers: what to pay (402), or the payment once it needs nothing more. */
export type X402Offer =
  | { readonly _tag: "Required"; readonly payment: Payment; readonly accepts: ReadonlyArray<X402Requirements> }
  | { readonly _tag: "Settled"; readonly payment: Payment }

/** A payment attempt's answer: the settlement, the payment as it stands, and what it still accepts on refusal. */
export interface X402Attempt {
  readonly settlement: X402Settlement
  readonly offer: X402Offer
}

const hex = (bytes: Uint8Array) => `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * Every payment payable over x402 (`GET /v1/x402/payments/{id}`): while it waits for the buyer
 * it asks (402) for its amount in each pegged EIP-3009 token of its mode's networks, payable to
 * the chain's collection address; a payment signed for one of them is checked like a facilitator
 * settlement, committed like a checkout confirm (`PaymentCommitments`: one commitment per payment,
 * repeats idempotent) and carried by the executor. The payment id is the capability, as on the
 * checkout.
 */
export class X402PaymentAddress extends Context.Service<X402PaymentAddress, {
  readonly offer: (paymentId: string) => Effect.Effect<X402Offer, PaymentNotFound>
  readonly pay: (paymentId: string, payment: X402Payment) => Effect.Effect<X402Attempt, PaymentNotFound>
}>()("@paygate/domain/X402PaymentAddress") {
  /** The address over the ports in context. */
  static readonly layer = Layer.effect(
    X402PaymentAddress,
    Effect.gen(function*() {
      const payments = yield* Payments
      const repo = yield* PaymentRepository
      const catalog = yield* AssetCatalog
      const modes = yield* NetworkModes
      const oracle = yield* PriceOracle
      const chain = yield* ChainGateway
      const commitments = yield* PaymentCommitments
      const check = yield* makeX402Checks
      const { settleWaitMillis } = yield* X402Settings
      const outcome = x402Outcome(repo)

      // The payment's amount in each pegged EIP-3009 token it can be paid with (a rate would make the amount move under the signer).
      const requirementsOf = Effect.fnUntraced(function*(payment: Payment) {
        const now = yield* nowSeconds
        // x402's exact scheme pays the collection address outright: a held payment is paid into the escrow instead.
        const assets = payment.hold !== undefined ? [] : catalog.all.filter((a) => isEip3009(a) && modes.modeOf(a.chainId) === payment.mode)
        const accepts: Array<X402Requirements> = []
        for (const asset of assets) {
          const pricing = yield* oracle.pricing(payment.currency, asset.assetId)
          if (Option.isNone(pricing) || pricing.value._tag !== "Peg") continue
          const domain = yield* Effect.option(chain.tokenDomain(asset.assetId))
          if (Option.isNone(domain)) continue
          const priced = quotePayment(payment, asset.decimals, pricing.value, now, 0)
          accepts.push({
            scheme: exactScheme,
            network: asset.chainId,
            asset: asset.assetId.split(":").at(-1)!,
            amount: priced.tokenAmount.toString(),
            payTo: asset.collectionAddress,
            maxTimeoutSeconds: Math.max(60, payment.expiresAt - now),
            extra: { name: domain.value.name, version: domain.value.version }
          })
        }
        return accepts
      })

      const offerOf = (payment: Payment): Effect.Effect<X402Offer> =>
        payment.status === "requires_action"
          ? Effect.map(requirementsOf(payment), (accepts) => ({ _tag: "Required" as const, payment, accepts }))
          : Effect.succeed({ _tag: "Settled" as const, payment })

      const offer = Effect.fn("X402PaymentAddress.offer")(function*(paymentId: string) {
        return yield* offerOf(yield* payments.find({}, paymentId))
      })

      const pay = Effect.fn("X402PaymentAddress.pay")(function*(paymentId: string, x402: X402Payment) {
        const deadline = (yield* Clock.currentTimeMillis) + settleWaitMillis
        const payment = yield* payments.find({}, paymentId)
        const network = x402.accepted.network
        const refused = (refusal: X402Refusal) =>
          Effect.map(Effect.flatMap(payments.find({}, paymentId), offerOf), (offer): X402Attempt => ({
            settlement: { success: false, errorReason: refusal.reason, errorMessage: refusal.message, payer: refusal.payer?.split(":")[2], transaction: "", network },
            offer
          }))
        const authorization = x402.authorization
        const fingerprint = hex(keccak256(new TextEncoder().encode(JSON.stringify([
          paymentId,
          network,
          x402.accepted.asset,
          authorization?.from,
          authorization?.value,
          authorization?.validBefore,
          authorization?.nonce,
          x402.signature
        ].map((part) => (part ?? "").toLowerCase())))))
        // A repeat of the payment that was accepted answers its outcome.
        if (payment.commitment?.fingerprint === fingerprint) {
          return { settlement: yield* outcome(paymentId, network, deadline), offer: yield* offerOf(yield* payments.find({}, paymentId)) }
        }
        const attempt = Effect.gen(function*() {
          const accepts = payment.status === "requires_action" ? yield* requirementsOf(payment) : []
          const requirements = accepts.find((r) => r.network === network && same(r.asset, x402.accepted.asset))
          if (requirements === undefined) {
            return yield* refuse(X402Reason.requirements, payment.status === "requires_action"
              ? `Payment ${paymentId} is not payable in ${x402.accepted.asset} on ${network}; pay one of the requirements of its 402 answer.`
              : `Payment ${paymentId} is ${payment.status}; it takes no payment.`)
          }
          const checked = yield* check(payment.mode, { x402Version: x402.x402Version, payment: x402, requirements })
          yield* commitments.confirm({}, paymentId, {
            option: { account: checked.payer, asset: checked.asset.assetId, tokenAmount: checked.proof.value, quoteExpiresAt: null },
            proof: () => checked.proof,
            fingerprint,
            collectedData: null,
            walletName: x402WalletName
          }).pipe(Effect.catch((error) => refuse(X402Reason.requirements, error.message, checked.payer)))
          return yield* outcome(paymentId, network, deadline)
        })
        return yield* attempt.pipe(
          Effect.flatMap((settlement) =>
            Effect.map(Effect.flatMap(payments.find({}, paymentId), offerOf), (offer): X402Attempt => ({ settlement, offer }))),
          Effect.catch((refusal) => ("_tag" in refusal && refusal._tag === "X402Refusal" ? refused(refusal) : Effect.fail(refusal)))
        )
      })

      return X402PaymentAddress.of({ offer, pay })
    })
  )
}
