import { Clock, Context, Effect, Layer, Option, Result, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import { isHexAddress, normalizeEip55Address } from "../caip/Eip55.ts"
import { InvalidState, ParamsValidation, PaymentNotFound } from "../errors/DomainErrors.ts"
import type { AlreadyRefunded, PaymentNotSucceeded } from "../errors/DomainErrors.ts"
import { RefundId } from "../ids/Ids.ts"
import type { Payment } from "../payment/Payment.ts"
import { nextLeg, pendingPayout } from "../payout/Payout.ts"
import { unpayableAccount } from "../payout/UnpayableAccount.ts"
import { AssetCatalog, type PayableAsset } from "../ports/AssetCatalog.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { RefundClaimStore } from "../ports/RefundClaimStore.ts"
import type { Refund } from "../refund/Refund.ts"
import { type ClaimLink, claimLinkMillis, type RefundClaim } from "../refund/RefundClaim.ts"
import { type Access, canSee } from "./Access.ts"
import { type RefundAmount, Refunds } from "./Refunds.ts"
import { traced } from "./Traced.ts"

const isRefundId = Schema.is(RefundId)

/** What the claim page of a link shows: the refund, whose it is, in what, and whether it can still be claimed. */
export interface ClaimView {
  readonly refund: Refund
  readonly claim: RefundClaim
  readonly merchantName: string
  readonly merchantIconUrl: string | null
  readonly mode: Payment["mode"]
  /** The token it is paid in (absent: a token no longer configured; the page then names the CAIP-19 id). */
  readonly asset: PayableAsset | undefined
  readonly assetId: string
  readonly state: "open" | "claimed" | "expired"
}

/** What a claim came to. */
export type ClaimOutcome =
  | { readonly _tag: "Claimed"; readonly refund: Refund }
  | { readonly _tag: "Closed"; readonly state: "claimed" | "expired" }
  | { readonly _tag: "Missing" }

// Why an entered address is refused, in one line the buyer can act on; or its EIP-55 form.
const checkAddress = (entered: string, assets: ReadonlyArray<PayableAsset>): Result.Result<string, string> => {
  if (!isHexAddress(entered)) return Result.fail("That is not an address: enter 0x followed by 40 characters 0-9 and a-f.")
  const address = normalizeEip55Address(entered)
  if (Result.isFailure(address)) {
    return Result.fail("That address has a typo: its capital letters do not match its checksum. Copy it again from your wallet.")
  }
  const unpayable = unpayableAccount(assets, entered)
  if (unpayable === "zero") return Result.fail("That is the zero address: nothing sent there can ever be spent. Enter your wallet's address.")
  if (unpayable !== undefined) return Result.fail("That address belongs to this payment service or a token contract, not to you. Enter your wallet's address.")
  return address
}

/**
 * Refunds to an address the buyer chooses (docs/refunds.md): the merchant creates the refund with
 * a one-time link (the refund reserves its amount at once, like any refund, with no payout yet),
 * sends the link to the buyer, and the buyer names the address on the claim page; the claim adds
 * the refund's payout to that address, which the worker then executes as any refund payout. The
 * merchant can issue a new link at any time before the claim (the old one stops working).
 */
export class RefundClaims extends Context.Service<RefundClaims, {
  /** `Refunds.request` to an address the buyer chooses: the refund and its first link. */
  readonly create: (
    access: Access,
    paymentId: string,
    amount?: RefundAmount
  ) => Effect.Effect<
    { readonly refund: Refund; readonly link: ClaimLink },
    PaymentNotFound | PaymentNotSucceeded | AlreadyRefunded | ParamsValidation | InvalidState
  >
  /** A new link for an unclaimed claim refund; unknown, not the caller's or not a claim refund → `payment_not_found`; claimed → `invalid_state`. */
  readonly reissue: (access: Access, refundId: string) => Effect.Effect<ClaimLink, PaymentNotFound | InvalidState>
  /** The EIP-55 form of the address the buyer `entered`, or why it is refused (as `claim` refuses it). */
  readonly check: (entered: string) => Effect.Effect<string, ParamsValidation>
  /** The claim page of `token`; none for a token that is not a current link. */
  readonly open: (token: string) => Effect.Effect<Option.Option<ClaimView>>
  /**
   * Claims the refund of `token` for the address the buyer `entered`. Refused with
   * `params_validation` and a one-line message: not an address, a mixed-case address whose EIP-55
   * checksum is wrong (a typo), the zero address, and the service's own collection addresses and
   * token contracts (tokens sent there would be lost or stay with the service).
   */
  readonly claim: (token: string, entered: string) => Effect.Effect<ClaimOutcome, ParamsValidation>
}>()("@paygate/domain/RefundClaims") {
  /** The use case over `Refunds` and the stores in context. */
  static readonly layer = Layer.effect(
    RefundClaims,
    Effect.gen(function*() {
      const refunds = yield* Refunds
      const claims = yield* RefundClaimStore
      const payments = yield* PaymentRepository
      const merchants = yield* MerchantRepository
      const catalog = yield* AssetCatalog
      const random = yield* SecureRandom.SecureRandom

      const newLink = Effect.gen(function*() {
        const token = Base64Url.encode(yield* random.randomBytes(32))
        return { token, expiresAt: (yield* Clock.currentTimeMillis) + claimLinkMillis }
      })

      const paymentOf = (refund: Refund) =>
        Effect.flatMap(payments.findById(refund.paymentId), (found) =>
          Option.isSome(found) && found.value.commitment !== null
            ? Effect.succeed({ ...found.value, commitment: found.value.commitment })
            : Effect.die(new Error(`refund ${refund.id} has no committed payment`)))

      const create = Effect.fnUntraced(function*(access: Access, paymentId: string, amount?: RefundAmount) {
        const link = yield* newLink
        const refund = yield* refunds.request(access, paymentId, amount, link)
        return { refund, link }
      }, traced("RefundClaims.create"))

      const reissue = Effect.fnUntraced(function*(access: Access, refundId: string) {
        const notFound = new PaymentNotFound({ message: `No claim refund ${refundId}.` })
        const found = isRefundId(refundId) ? yield* claims.find(refundId) : Option.none()
        if (Option.isNone(found)) return yield* notFound
        const payment = yield* paymentOf(found.value.refund)
        if (!canSee(access, payment)) return yield* notFound
        const claimed = new InvalidState({ message: `Refund ${refundId} was claimed already; it goes to ${found.value.claim.recipient}.` })
        if (found.value.claim.claimedAt !== null) return yield* claimed
        const link = yield* newLink
        return (yield* claims.reissue(found.value.refund.id, link)) ? link : yield* claimed
      }, traced("RefundClaims.reissue"))

      const open = Effect.fnUntraced(function*(token: string) {
        const found = yield* claims.findByToken(token)
        if (Option.isNone(found)) return Option.none<ClaimView>()
        const { claim, refund } = found.value
        const payment = yield* paymentOf(refund)
        const merchant = yield* merchants.findById(payment.partnerId, payment.mode, payment.merchantId)
        const now = yield* Clock.currentTimeMillis
        return Option.some<ClaimView>({
          refund,
          claim,
          merchantName: Option.isSome(merchant) ? merchant.value.name : "The merchant",
          merchantIconUrl: Option.isSome(merchant) ? merchant.value.iconUrl : null,
          mode: payment.mode,
          asset: catalog.asset(payment.commitment.asset),
          assetId: payment.commitment.asset,
          state: claim.claimedAt !== null ? "claimed" : claim.expiresAt <= now ? "expired" : "open"
        })
      }, traced("RefundClaims.open"))

      const check = (entered: string) =>
        Result.match(
          checkAddress(entered.trim(), catalog.all),
          {
            onFailure: (message) => Effect.fail(new ParamsValidation({ message })),
            onSuccess: Effect.succeed
          }
        )

      const claim = Effect.fnUntraced(function*(token: string, entered: string) {
        const view = yield* open(token)
        if (Option.isNone(view)) return { _tag: "Missing" } as const
        if (view.value.state !== "open") return { _tag: "Closed", state: view.value.state } as const
        const address = yield* check(entered)
        const payment = yield* paymentOf(view.value.refund)
        const chainId = payment.commitment.account.split(":").slice(0, 2).join(":")
        const now = yield* Clock.currentTimeMillis
        const claimed = yield* claims.claim(token, `${chainId}:${address}`, now, (refund, prior) => [
          pendingPayout({
            paymentId: refund.paymentId,
            kind: "refund",
            // After every payout of the payment, a settlement of what refunds left included: never a live one's leg.
            leg: nextLeg(prior),
            refundId: refund.id,
            asset: payment.commitment.asset,
            recipient: `${chainId}:${address}`,
            value: refund.value
          }, now)
        ])
        if (Option.isSome(claimed)) return { _tag: "Claimed", refund: claimed.value } as const
        // Claimed (or expired) between the look and the claim: the page says which.
        const after = yield* open(token)
        return Option.isSome(after) && after.value.state !== "open"
          ? { _tag: "Closed", state: after.value.state } as const
          : { _tag: "Closed", state: "claimed" } as const
      }, traced("RefundClaims.claim"))

      return RefundClaims.of({ create, reissue, check, open, claim })
    })
  )
}
