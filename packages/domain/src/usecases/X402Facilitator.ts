import { Clock, Context, Duration, Effect, Layer, Option, Result } from "effect"
import { keccak256 } from "../caip/Keccak256.ts"
import type { MerchantNotFound } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { PartnerId } from "../ids/Ids.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import { type CurrencyCode, currencyExponent, isCurrencyCode } from "../money/Currency.ts"
import { Commitment, type Mode, Payment, SignedAuthorization } from "../payment/Payment.ts"
import { AssetCatalog, isEip3009, type PayableAsset } from "../ports/AssetCatalog.ts"
import { ChainGateway } from "../ports/ChainGateway.ts"
import { type Completing, IdempotencyStore } from "../ports/IdempotencyStore.ts"
import { NetworkModes } from "../ports/NetworkModes.ts"
import { PayableCurrencies } from "../ports/PayableCurrencies.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import {
  exactScheme,
  type X402Asset,
  type X402Kind,
  X402Reason,
  type X402Request,
  type X402Settlement,
  type X402Verdict,
  x402Version
} from "../x402/X402Terms.ts"
import { systemAccess } from "./Access.ts"
import { Merchants } from "./Merchants.ts"
import { makePaymentChanges } from "./PaymentChanges.ts"
import { type CheckedPayment, findAsset, makeX402Checks, refuse, type X402Refusal } from "./X402Checks.ts"
import { x402Outcome } from "./X402Outcome.ts"

/** Who asks: a partner key's partner and mode, and the merchant it names. */
export interface X402Caller {
  readonly partnerId: PartnerId
  readonly mode: Mode
  readonly merchantId: string
}

/** How long `settle` waits for the chain before answering a pending settlement. */
export interface X402SettingsShape {
  readonly settleWaitMillis: number
}

/** Facilitator tunables; by default a settle waits up to 20 s for its transaction to be confirmed. */
export const X402Settings = Context.Reference<X402SettingsShape>("@paygate/domain/X402Settings", {
  defaultValue: () => ({ settleWaitMillis: 20_000 })
})

const pollEvery = Duration.millis(200)
const hex = (bytes: Uint8Array) => `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`
const digest = (parts: ReadonlyArray<string>) => hex(keccak256(new TextEncoder().encode(JSON.stringify(parts.map((p) => p.toLowerCase())))))
/** The wallet name recorded on x402 payments (shown as the buyer's account provider). */
export const x402WalletName = "x402"

/** A fiat amount for a token amount: at the token's peg, rounded up to the currency's minor unit. */
const atPeg = (tokenAmount: bigint, decimals: number, currency: CurrencyCode) => {
  const exponent = currencyExponent(currency)
  if (exponent >= decimals) return tokenAmount * 10n ** BigInt(exponent - decimals)
  const unit = 10n ** BigInt(decimals - exponent)
  return (tokenAmount + unit - 1n) / unit
}

/**
 * paygate as an x402 facilitator (`/x402/supported`, `/x402/verify`, `/x402/settle`) for a
 * partner's merchant. Each settlement is a payment of that merchant, created already confirmed
 * (`processing`, with its `payment.created` and `payment.processing` events) and then carried by
 * the executor like any pull payment: sent once, watched until its confirmations decide.
 *
 * Settling is idempotent on the authorization (token, payer, nonce): the first settle claims it
 * (an idempotency key of the partner, leased) and records its payment in the same transaction as
 * the key's response, so a retry, a concurrent settle or one after a crash finds that payment and
 * answers its outcome; nothing is sent twice. An authorization is one payment of one merchant
 * whatever partner presents it (the payments' unique commitment).
 */
export class X402Facilitator extends Context.Service<X402Facilitator, {
  readonly supported: (caller: X402Caller) => Effect.Effect<ReadonlyArray<X402Kind>, MerchantNotFound>
  readonly verify: (caller: X402Caller, request: X402Request) => Effect.Effect<X402Verdict>
  readonly settle: (caller: X402Caller, request: X402Request) => Effect.Effect<X402Settlement>
}>()("@paygate/domain/X402Facilitator") {
  /** The facilitator over the ports in context. */
  static readonly layer = Layer.effect(
    X402Facilitator,
    Effect.gen(function*() {
      const catalog = yield* AssetCatalog
      const chain = yield* ChainGateway
      const modes = yield* NetworkModes
      const merchants = yield* Merchants
      const repo = yield* PaymentRepository
      const ids = yield* IdGenerator
      const keys = yield* IdempotencyStore
      const oracle = yield* PriceOracle
      const { currencies } = yield* PayableCurrencies
      const { settleWaitMillis } = yield* X402Settings
      const check = yield* makeX402Checks
      const { change, eventFor } = makePaymentChanges(repo, ids)
      const outcome = x402Outcome(repo)

      const merchantOf = (caller: X402Caller) => merchants.get({ partnerId: caller.partnerId, mode: caller.mode }, caller.merchantId, "recent")
      const unknownMerchant = (caller: X402Caller) =>
        refuse(X402Reason.requirements, `No merchant ${caller.merchantId} for this API key.`)

      const supported = Effect.fn("X402Facilitator.supported")(function*(caller: X402Caller) {
        yield* merchantOf(caller)
        const kinds = new Map<string, { payTo: string; assets: Array<X402Asset> }>()
        for (const asset of catalog.all.filter((a) => isEip3009(a) && modes.modeOf(a.chainId) === caller.mode)) {
          // A token whose domain cannot be read now (its chain is down) is left out until it can.
          const domain = yield* Effect.option(chain.tokenDomain(asset.assetId))
          if (Option.isNone(domain)) continue
          const kind = kinds.get(asset.chainId) ?? { payTo: asset.collectionAddress, assets: [] }
          kind.assets.push({ address: asset.assetId.split(":").at(-1)!, symbol: asset.symbol, decimals: asset.decimals, domain: domain.value })
          kinds.set(asset.chainId, kind)
        }
        return [...kinds].sort(([a], [b]) => a.localeCompare(b)).map(([network, extra]): X402Kind => ({ x402Version, scheme: exactScheme, network, extra }))
      })

      const checked = (caller: X402Caller, request: X402Request) =>
        Effect.flatMap(Effect.option(merchantOf(caller)), (merchant) =>
          Option.isNone(merchant)
            ? unknownMerchant(caller)
            : Effect.map(check(caller.mode, request), (payment) => ({ merchant: merchant.value, payment })))

      const verify = Effect.fn("X402Facilitator.verify")(function*(caller: X402Caller, request: X402Request) {
        return yield* checked(caller, request).pipe(
          Effect.map(({ payment }): X402Verdict => ({ isValid: true, payer: payment.proof.account.split(":")[2]! })),
          Effect.catch((refusal: X402Refusal) =>
            Effect.succeed<X402Verdict>({ isValid: false, invalidReason: refusal.reason, invalidMessage: refusal.message, payer: payerAddress(refusal.payer) }))
        )
      })

      // The merchant's fiat amount of an x402 payment: the token is priced at its peg.
      const fiatOf = Effect.fnUntraced(function*(asset: PayableAsset, tokenAmount: bigint, mode: Mode) {
        for (const currency of [...(currencies?.[mode] ?? ["USD"])].sort()) {
          if (!isCurrencyCode(currency)) continue
          const pricing = yield* oracle.pricing(currency, asset.assetId)
          if (Option.isSome(pricing) && pricing.value._tag === "Peg") return { currency, value: atPeg(tokenAmount, asset.decimals, currency) }
        }
        return yield* refuse(X402Reason.asset, `${asset.symbol} is not pegged to a currency; paygate settles x402 payments in pegged tokens only.`)
      })

      // The merchant's payment for a checked authorization, created and committed to in one transaction.
      const record = Effect.fnUntraced(function*(caller: X402Caller, merchant: Merchant, request: X402Request, payment: CheckedPayment, fingerprint: string) {
        const { asset, payer, proof } = payment
        const fiat = yield* fiatOf(asset, proof.value, caller.mode)
        const millis = yield* Clock.currentTimeMillis
        const created = new Payment({
          id: yield* ids.make("payment"),
          partnerId: caller.partnerId,
          merchantId: merchant.id,
          mode: caller.mode,
          referenceId: (request.payment.resourceUrl ?? `x402 ${proof.nonce}`).slice(0, 255) || `x402 ${proof.nonce}`,
          currency: fiat.currency,
          value: fiat.value,
          status: "requires_action",
          stateVersion: 1,
          checkout: null,
          expiresAt: proof.validBefore,
          commitment: null,
          cancelledReason: null,
          cancelledAt: null,
          createdAt: millis,
          updatedAt: millis
        }, { disableChecks: true })
        yield* repo.insert(created, [yield* eventFor("payment.created", created, {})]).pipe(Effect.orDie)
        const commitment = new Commitment({
          kind: "pull",
          account: payer,
          asset: asset.assetId,
          tokenAmount: proof.value,
          fingerprint,
          txHash: null,
          authorization: new SignedAuthorization({ to: proof.to, validBefore: proof.validBefore, nonce: proof.nonce, signature: proof.signature }),
          reference: null,
          walletName: x402WalletName,
          confirmedAt: Math.floor(millis / 1000)
        })
        return yield* change(systemAccess, created.id, () =>
          Result.succeed(Option.some({
            event: { _tag: "ConfirmAccepted" as const },
            type: "payment.processing" as const,
            patch: () => ({ commitment }),
            stage: { account: payer, asset: asset.assetId, amount: proof.value.toString() }
          })), () => "duplicate" as const).pipe(Effect.catchTag("PaymentNotFound", Effect.die))
      })

      const refused = (request: X402Request, refusal: X402Refusal): X402Settlement => ({
        success: false,
        errorReason: refusal.reason,
        errorMessage: refusal.message,
        payer: payerAddress(refusal.payer),
        transaction: "",
        network: request.requirements.network
      })

      const settle = Effect.fn("X402Facilitator.settle")(function*(caller: X402Caller, request: X402Request) {
        const network = request.requirements.network
        const deadline = (yield* Clock.currentTimeMillis) + settleWaitMillis
        const authorization = request.payment.authorization
        const asset = findAsset(catalog, modes, caller.mode, network, request.requirements.asset)
        // Without a well-formed identity there is nothing to be idempotent on: the checks refuse it.
        if (authorization === undefined || asset === undefined || request.payment.signature === undefined) {
          return yield* Effect.flatMap(checked(caller, request), () => Effect.die(new Error("an x402 payment without identity passed the checks")))
        }
        const scope = { partnerId: caller.partnerId, route: "POST /x402/settle", key: digest([asset.assetId, authorization.from, authorization.nonce]) }
        const fingerprint = digest([
          caller.merchantId,
          asset.assetId,
          authorization.from,
          authorization.to,
          authorization.value,
          authorization.validAfter,
          authorization.validBefore,
          authorization.nonce,
          request.payment.signature
        ])
        for (;;) {
          const claim = yield* keys.claim(scope, fingerprint, yield* Clock.currentTimeMillis)
          if (claim._tag === "Replay") return yield* outcome(JSON.parse(claim.response.body).paymentId, network, deadline)
          if (claim._tag === "Conflict" && claim.reason === "different_body") {
            return yield* refuse(X402Reason.nonceUsed, "This authorization's nonce was already settled with another signature, amount or merchant.", `${asset.chainId}:${authorization.from}`)
          }
          if (claim._tag === "Conflict") {
            // Another settle of the same authorization is recording it: its response is ours.
            if ((yield* Clock.currentTimeMillis) >= deadline) return yield* refuse(X402Reason.settleError, "Another settle of this authorization is still in progress; settle again.")
            yield* Effect.sleep(pollEvery)
            continue
          }
          const { lease } = claim
          const { merchant, payment } = yield* checked(caller, request).pipe(Effect.tapError(() => keys.release(lease)))
          const done = yield* keys.completing(lease, record(caller, merchant, request, payment, fingerprint).pipe(
            Effect.map((recorded): Completing<string | X402Refusal> => ({ value: recorded.id, keep: { status: 200, body: JSON.stringify({ paymentId: recorded.id }) } })),
            Effect.catch((error) => Effect.succeed<Completing<string | X402Refusal>>({ value: error === "duplicate" ? duplicate(payment.payer) : error, keep: "undone" }))
          )).pipe(Effect.onError(() => keys.release(lease)))
          if (done.outcome === "leaseLost") continue
          if (typeof done.value === "string") return yield* outcome(done.value, network, deadline)
          return yield* Effect.fail(done.value)
        }
      }, (effect, _caller, request) => Effect.catch(effect, (refusal: X402Refusal) => Effect.succeed(refused(request, refusal))))

      return X402Facilitator.of({ supported, verify, settle })
    })
  )
}

const duplicate = (payer: string): X402Refusal => ({
  _tag: "X402Refusal",
  reason: X402Reason.nonceUsed,
  message: "This authorization already paid for another payment; it cannot be used again.",
  payer
})

/** The address of a CAIP-10 account, as x402 names payers. */
const payerAddress = (account: string | undefined) => account?.split(":")[2]
