import { Clock, Effect, Layer } from "effect"
import { ChainUnavailable } from "../ports/ChainUnavailable.ts"
import { SubmissionRefused } from "../ports/SubmissionRefused.ts"
import { ChargeRefused, type ChargeRefusal, SubscriptionChain } from "../ports/SubscriptionChain.ts"
import { chargeDeadline, periodStart, type SubscriptionTerms, termEnd } from "../subscription/SubscriptionTerms.ts"

/**
 * The state of an in-memory subscription contract, exposed so tests can change the world (fund or
 * drain the payer, revoke the allowance, lose a response) and check what the chain did.
 */
export interface MemorySubscriptionChainState {
  /** Token balances by CAIP-10 account. */
  readonly balances: Map<string, bigint>
  /** Subscriptions the contract holds, by salt, and whether they are cancelled. */
  readonly held: Map<string, { cancelled: boolean }>
  /** Charged per `salt/period`. */
  readonly charged: Map<string, bigint>
  /** Payers who revoked their allowance. */
  readonly revoked: Set<string>
  /** Every transaction sent, by hash, in order. */
  readonly transactions: Map<string, { readonly kind: "subscribe" | "charge" | "cancel"; readonly salt: string }>
  /**
   * How many of the next sends reach the chain but lose their response (as a crash between sending and
   * recording would): the send takes effect and answers `ChainUnavailable`.
   */
  lostResponses: number
}

/** A fresh contract with no subscriptions. */
export const makeMemorySubscriptionChain = (): MemorySubscriptionChainState => ({
  balances: new Map(),
  held: new Map(),
  charged: new Map(),
  revoked: new Set(),
  transactions: new Map(),
  lostResponses: 0
})

const chainOf = (terms: SubscriptionTerms) => terms.asset.split("/")[0]!

/**
 * In-memory {@link SubscriptionChain} for unit tests, with the contract's rules: one subscription
 * per terms, charges only from a period's start to its deadline, never more than the period's cap,
 * none after a cancellation or a revoked allowance, none beyond the payer's balance. Every sent
 * transaction is final at once; signatures are any non-empty string. It names `chains` as those with
 * a contract (the fixtures' Base by default) but serves terms on any.
 */
export const layerMemorySubscriptionChain = (
  state: MemorySubscriptionChainState = makeMemorySubscriptionChain(),
  chains: ReadonlyArray<string> = ["eip155:8453"]
): Layer.Layer<SubscriptionChain> => {
  const now = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))
  const key = (terms: SubscriptionTerms, index: number) => `${terms.salt}/${index}`
  const send = (kind: "subscribe" | "charge" | "cancel", terms: SubscriptionTerms, apply: () => void): Effect.Effect<string, ChainUnavailable> =>
    Effect.suspend(() => {
      apply()
      const hash = `0x${(state.transactions.size + 1).toString(16).padStart(64, "0")}`
      state.transactions.set(hash, { kind, salt: terms.salt })
      if (state.lostResponses > 0) {
        state.lostResponses--
        return Effect.fail(new ChainUnavailable({ chainId: chainOf(terms), message: "the response was lost" }))
      }
      return Effect.succeed(hash)
    })
  const refuse = (terms: SubscriptionTerms, reason: ChargeRefusal, message: string): Effect.Effect<string, ChargeRefused> =>
    Effect.fail(new ChargeRefused({ chainId: chainOf(terms), reason, message }))
  const refuseSend = (terms: SubscriptionTerms, message: string): Effect.Effect<string, SubmissionRefused> =>
    Effect.fail(new SubmissionRefused({ chainId: chainOf(terms), message }))

  return Layer.succeed(SubscriptionChain, SubscriptionChain.of({
    chains,
    permitTypedData: (terms, sigDeadline) => Effect.succeed(JSON.stringify({ salt: terms.salt, sigDeadline })),
    verifyPermit: () => Effect.void,
    subscribe: (terms, sigDeadline) =>
      Effect.flatMap(now, (seconds): Effect.Effect<string, ChainUnavailable | SubmissionRefused> => {
        if (seconds >= sigDeadline) return refuseSend(terms, "SignatureExpired")
        if (state.held.has(terms.salt)) return refuseSend(terms, "AlreadySubscribed")
        return send("subscribe", terms, () => state.held.set(terms.salt, { cancelled: false }))
      }),
    charge: (terms, index, amount) =>
      Effect.flatMap(now, (seconds): Effect.Effect<string, ChainUnavailable | ChargeRefused> => {
        const held = state.held.get(terms.salt)
        if (held === undefined || held.cancelled) return refuse(terms, "closed", held === undefined ? "NotSubscribed" : "SubscriptionCancelled")
        const end = termEnd(terms)
        if ((terms.periods !== null && index >= terms.periods) || (end !== null && seconds >= end)) return refuse(terms, "other", "TermOver")
        if (seconds < periodStart(terms, index)) return refuse(terms, "early", "PeriodNotStarted")
        if (seconds >= chargeDeadline(terms, index)) return refuse(terms, "other", "PeriodPassed")
        const charged = state.charged.get(key(terms, index)) ?? 0n
        if (charged + amount > terms.amountPerPeriod) {
          return charged >= amount ? refuse(terms, "charged", "OverCap: the period is charged") : refuse(terms, "other", "OverCap")
        }
        if (state.revoked.has(terms.payer)) return refuse(terms, "revoked", "AllowanceExpired")
        const balance = state.balances.get(terms.payer) ?? 0n
        if (balance < amount) return refuse(terms, "insufficient_funds", "TransferFailed: the payer is short of funds")
        return send("charge", terms, () => {
          state.balances.set(terms.payer, balance - amount)
          state.balances.set(terms.receiver, (state.balances.get(terms.receiver) ?? 0n) + amount)
          state.charged.set(key(terms, index), charged + amount)
        })
      }),
    cancel: (terms) =>
      Effect.suspend((): Effect.Effect<string, ChainUnavailable | SubmissionRefused> => {
        const held = state.held.get(terms.salt)
        if (held === undefined) return refuseSend(terms, "NotSubscribed")
        if (held.cancelled) return refuseSend(terms, "SubscriptionCancelled")
        return send("cancel", terms, () => state.held.set(terms.salt, { cancelled: true }))
      }),
    observe: (_terms, txHash) => Effect.succeed(state.transactions.has(txHash) ? "succeeded" as const : "dropped" as const),
    onChain: (terms) =>
      Effect.sync(() => {
        const held = state.held.get(terms.salt)
        return { subscribed: held !== undefined, cancelled: held?.cancelled ?? false }
      }),
    charged: (terms, index) => Effect.sync(() => state.charged.get(key(terms, index)) ?? 0n)
  }))
}
