import { Effect, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { type OptionClaims, OptionIds } from "../gateway/OptionId.ts"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import type { Payment } from "../payment/Payment.ts"
import type { PayableAsset } from "../ports/AssetCatalog.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { QuoteStore, type StoredQuote } from "../ports/QuoteStore.ts"
import { quotePayment } from "../quote/Quote.ts"
import { PaymentSettings } from "./PaymentSettings.ts"

/**
 * The most quotes a payment holds: 20 accounts times a chain's few tokens, refreshed now and then.
 * Replaced quotes are pruned once expired; a payment still at the bound gets no new quote.
 */
export const maxQuotesPerPayment = 200

// How long after its expiry a replaced quote is kept: a confirm that checked it just before then has committed.
const pruneAfterSeconds = 60

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * Quotes handed out as options (the options and deposit operations): the same (payment, account,
 * asset, kind) gets the same quote while it is valid, unless its option id is to be refreshed; a
 * new quote is priced now, stored and signed into its option id, within {@link maxQuotesPerPayment}.
 */
export const makeQuoting = Effect.gen(function*() {
  const oracle = yield* PriceOracle
  const quotes = yield* QuoteStore
  const ids = yield* OptionIds
  const random = yield* SecureRandom.SecureRandom
  // Settings are taken when the use case is built, like its ports (requests run without them).
  const { quoteTtlSeconds } = yield* PaymentSettings

  const fresh = Effect.fnUntraced(function*(
    payment: Payment,
    account: string,
    asset: PayableAsset,
    kind: OptionClaims["kind"],
    now: number,
    escrow: OptionClaims["escrow"]
  ) {
    const pricing = yield* oracle.pricing(payment.currency, asset.assetId)
    if (Option.isNone(pricing)) return Option.none<StoredQuote>()
    const priced = quotePayment(payment, asset.decimals, pricing.value, now, quoteTtlSeconds)
    const claims: OptionClaims = {
      paymentId: payment.id,
      account,
      asset: asset.assetId,
      value: priced.tokenAmount.toString(),
      // A quote never outlives its payment.
      expiresAt: priced.expiresAt === null ? null : Math.min(priced.expiresAt, payment.expiresAt),
      kind,
      // Pull: the 32-byte EIP-3009 nonce; push: the 16-byte reference appended to the transfer (API rules §10);
      // deposit: 16 bytes never handed out (a deposit is found by its address).
      nonce: `0x${hex(yield* random.randomBytes(kind === "pull" ? 32 : 16))}`,
      quotedAt: now,
      ...(escrow === undefined ? {} : { escrow })
    }
    const optionId = yield* ids.issue(claims)
    yield* quotes.save({ optionId, claims })
    return Option.some<StoredQuote>({ optionId, claims })
  })

  // The reused quote, else `admit` and a fresh one.
  const choose = <E>(admit: (payment: Payment, now: number) => Effect.Effect<void, E>) =>
    Effect.fnUntraced(function*(
      payment: Payment,
      account: string,
      asset: PayableAsset,
      kind: OptionClaims["kind"],
      now: number,
      refresh: ReadonlySet<string> = new Set(),
      escrow?: OptionClaims["escrow"]
    ) {
      const latest = yield* quotes.latest(payment.id, account, asset.assetId)
      const reusable = Option.filter(latest, ({ claims, optionId }) =>
        !refresh.has(optionId) && claims.kind === kind && (claims.expiresAt === null || now < claims.expiresAt) &&
        claims.escrow?.receiver === escrow?.receiver
      )
      if (Option.isSome(reusable)) return reusable
      yield* admit(payment, now)
      return yield* fresh(payment, account, asset, kind, now, escrow)
    })

  // Room for one more quote of the payment: its replaced, expired quotes go first.
  const withinBound = (payment: Payment, now: number) =>
    Effect.flatMap(quotes.prune(payment.id, now - pruneAfterSeconds), (held) =>
      held < maxQuotesPerPayment ? Effect.void : Effect.fail(
        new ParamsValidation({
          message: `This payment already holds ${maxQuotesPerPayment} quotes; ask again for the accounts already quoted, without refresh.`
        })
      ))

  return {
    /**
     * The valid quote of (payment, account, asset, kind) unless listed in `refresh`, else a fresh
     * one within the payment's bound (`params_validation` past it); none when unpriced. A held
     * payment's quote carries its escrow terms (a quote for another receiver is not reused).
     */
    current: choose(withinBound),
    /** The same for a deposit address: a new one only when the last has expired, a few per payment, so unbounded. */
    deposit: choose(() => Effect.void)
  }
})
