import { Context, type Effect, type Option } from "effect"
import type { OptionClaims } from "../gateway/OptionId.ts"

/** A quote handed out as an option: its id and claims. */
export interface StoredQuote {
  readonly optionId: string
  readonly claims: OptionClaims
}

/**
 * Quotes handed out by the options operation. The same (payment, account, asset) gets the same
 * option while its quote is valid (API rules §10); the nonce chosen with a quote is kept with it.
 */
export class QuoteStore extends Context.Service<QuoteStore, {
  /** The latest quote for (payment, account, asset), if any. */
  readonly latest: (paymentId: string, account: string, asset: string) => Effect.Effect<Option.Option<StoredQuote>>
  /** The latest quote of `asset` for the payment, whatever its account, if any. */
  readonly newest: (paymentId: string, asset: string) => Effect.Effect<Option.Option<StoredQuote>>
  /** Records a new quote; it becomes the latest for its (payment, account, asset). */
  readonly save: (quote: StoredQuote) => Effect.Effect<void>
  /** Every quote of (payment, account, asset), oldest first (a deposit's transfer is judged by the one that held when it was mined). */
  readonly history: (paymentId: string, account: string, asset: string) => Effect.Effect<ReadonlyArray<StoredQuote>>
  /**
   * Deletes the payment's quotes that are no longer of use: replaced by a later one of their
   * (payment, account, asset) and expired before `expiredBefore` (Unix seconds). Deposit quotes are
   * kept (a deposit transfer is judged by the quote that held when it was mined). Answers how many
   * quotes the payment still has.
   */
  readonly prune: (paymentId: string, expiredBefore: number) => Effect.Effect<number>
  /** The quote whose nonce (push: the transfer reference; pull: the EIP-3009 nonce) is `nonce` (lower-case hex). */
  readonly byNonce: (nonce: string) => Effect.Effect<Option.Option<StoredQuote>>
}>()("@paygate/domain/QuoteStore") {}
