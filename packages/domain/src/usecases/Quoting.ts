import { Effect, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { type OptionClaims, OptionIds } from "../gateway/OptionId.ts"
import { type CurrencyCode, currencyExponent } from "../money/Currency.ts"
import type { Payment } from "../payment/Payment.ts"
import type { PayableAsset } from "../ports/AssetCatalog.ts"
import { PriceOracle } from "../ports/PriceOracle.ts"
import { QuoteStore, type StoredQuote } from "../ports/QuoteStore.ts"
import { quote } from "../quote/Quote.ts"
import { PaymentSettings } from "./PaymentSettings.ts"

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * Quotes handed out as options (the options and deposit operations): the same (payment, account,
 * asset, kind) gets the same quote while it is valid, unless its option id is to be refreshed; a
 * new quote is priced now, stored and signed into its option id.
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
    now: number
  ) {
    const pricing = yield* oracle.pricing(payment.currency, asset.assetId)
    if (Option.isNone(pricing)) return Option.none<StoredQuote>()
    const priced = quote({
      fiatMinor: payment.value,
      fiatExponent: currencyExponent(payment.currency as CurrencyCode),
      tokenDecimals: asset.decimals,
      pricing: pricing.value,
      nowSeconds: now,
      ttlSeconds: quoteTtlSeconds
    })
    const claims: OptionClaims = {
      paymentId: payment.id,
      account,
      asset: asset.assetId,
      value: priced.tokenAmount.toString(),
      // A quote never outlives its payment.
      expiresAt: priced.expiresAt === null ? null : Math.min(priced.expiresAt, payment.expiresAt),
      kind,
      // Pull: the 32-byte EIP-3009 nonce; push: the 16-byte reference appended to the transfer (contract §5);
      // deposit: 16 bytes never handed out (a deposit is found by its address).
      nonce: `0x${hex(yield* random.randomBytes(kind === "pull" ? 32 : 16))}`,
      quotedAt: now
    }
    const optionId = yield* ids.issue(claims)
    yield* quotes.save({ optionId, claims })
    return Option.some<StoredQuote>({ optionId, claims })
  })

  /** The valid quote of (payment, account, asset, kind) unless listed in `refresh`, else a fresh one; none when unpriced. */
  const current = Effect.fnUntraced(function*(
    payment: Payment,
    account: string,
    asset: PayableAsset,
    kind: OptionClaims["kind"],
    now: number,
    refresh: ReadonlySet<string> = new Set()
  ) {
    const latest = yield* quotes.latest(payment.id, account, asset.assetId)
    const reusable = Option.filter(latest, ({ claims, optionId }) =>
      !refresh.has(optionId) && claims.kind === kind && (claims.expiresAt === null || now < claims.expiresAt)
    )
    return Option.isSome(reusable) ? reusable : yield* fresh(payment, account, asset, kind, now)
  })

  return { current }
})
