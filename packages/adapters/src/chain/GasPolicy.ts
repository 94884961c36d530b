/**
 * How much gas the service lets one chain's executor spend, and on what. Every executor operation
 * kind has a ceiling; what would need more is never sent (a buyer whose account is a contract
 * wallet can make its signature check, and so the transfer, as expensive as it likes):
 *
 * - `authorization`: one `transferWithAuthorization` (a pull payment), or one call to the subscription
 *   vault (`subscribe`, a charge, `cancel`), the executor's gas;
 * - `signatureCheck`: one contract wallet's `isValidSignature` call when a confirm is verified
 *   (a read, but the node runs it for us on every confirm).
 *
 * On top of that, a budget per time window: the gas limits of the transactions the executor sent for
 * one buyer, and for everyone, within the last `budgetWindowSeconds`. Sending beyond either is
 * refused (the payment stays `processing` while its authorization is valid), counted in
 * `paygate_executor_gas_refused_total` and logged as an error: an operator should look.
 * The budget is kept in memory per process and chain.
 *
 * Settings are per chain (`gas` in the chain's configuration); unset fields take the defaults below.
 *
 * @module
 */
import { Clock, Effect, Schema, Semaphore } from "effect"
import { ProcessMetrics } from "@paygate/observability"

const GasAmount = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 21_000, maximum: 1_000_000_000 })))

/** A chain's gas settings (`gas` of a chain in `ChainConfig`); every field is optional. */
export const GasSettings = Schema.Struct({
  /** Most gas one pull payment's `transferWithAuthorization`, or one subscription vault call, may take; default 300,000. */
  authorization: Schema.optionalKey(GasAmount),
  /** Most gas a contract wallet's `isValidSignature` may take when a confirm is verified; default 200,000. */
  signatureCheck: Schema.optionalKey(GasAmount),
  /** The budget's window, seconds; default 3,600. */
  budgetWindowSeconds: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 30 * 86_400 })))),
  /** Most executor gas (transaction gas limits) for one buyer within the window; default 10,000,000 on a real network. */
  budgetPerBuyer: Schema.optionalKey(GasAmount),
  /** Most executor gas for everyone within the window; default 1,000,000,000 on a real network. */
  budgetTotal: Schema.optionalKey(GasAmount)
})

/** A chain's gas settings. */
export type GasSettings = typeof GasSettings.Type

/** A chain's gas settings with the defaults filled in. */
export type GasPolicy = { readonly [K in keyof GasSettings]-?: number }

/**
 * The defaults on a real network: a transferWithAuthorization from an ordinary account takes about
 * 60–90k gas, a smart account's signature check adds some 10–100k (a passkey check without a
 * precompile more); a buyer gets over a hundred payments an hour (agents paying per request
 * included), the total over ten thousand.
 */
export const defaultGasPolicy: GasPolicy = {
  authorization: 300_000,
  signatureCheck: 200_000,
  budgetWindowSeconds: 3_600,
  budgetPerBuyer: 10_000_000,
  budgetTotal: 1_000_000_000
}

/**
 * The policy of `settings` (a chain's `gas`, if any). A test network's gas has no value, so its
 * budgets are unbounded unless set; the ceilings hold everywhere.
 */
export const policyOf = (settings: GasSettings | undefined, testnet: boolean): GasPolicy => ({
  ...defaultGasPolicy,
  ...(testnet ? { budgetPerBuyer: Number.POSITIVE_INFINITY, budgetTotal: Number.POSITIVE_INFINITY } : {}),
  ...settings
})

/** Why the executor did not send: the operation's ceiling, the buyer's budget, the total budget, or its simulation reverts. */
export type GasRefusal = "ceiling" | "buyer_budget" | "total_budget" | "reverts"

/** One chain's executor gas budget. */
export interface GasBudget {
  /**
   * Reserves `gas` for a transaction sent for `buyer` if both budgets allow it; else counts and logs
   * the refusal and answers it. A reservation counts for the window from now.
   */
  readonly reserve: (buyer: string, gas: bigint) => Effect.Effect<GasRefusal | undefined>
}

interface Spent {
  readonly at: number
  readonly buyer: string
  readonly gas: number
}

/** The budget of `chainId`'s executor under `policy`. */
export const makeBudget = (chainId: string, policy: GasPolicy): GasBudget => {
  // Oldest first; pruned on every reservation, so it holds at most one window of sent transactions.
  let spent: Array<Spent> = []
  const windowMs = policy.budgetWindowSeconds * 1000
  const permit = Semaphore.makeUnsafe(1)

  const reserve = (buyer: string, gas: bigint) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const key = buyer.toLowerCase()
      spent = spent.filter((entry) => entry.at > now - windowMs)
      const amount = Number(gas)
      const total = spent.reduce((sum, entry) => sum + entry.gas, 0)
      const mine = spent.reduce((sum, entry) => (entry.buyer === key ? sum + entry.gas : sum), 0)
      const refusal: GasRefusal | undefined = mine + amount > policy.budgetPerBuyer
        ? "buyer_budget"
        : total + amount > policy.budgetTotal
        ? "total_budget"
        : undefined
      if (refusal === undefined) {
        spent.push({ at: now, buyer: key, gas: amount })
        yield* ProcessMetrics.recordExecutorGas(chainId, amount)
        return undefined
      }
      yield* ProcessMetrics.recordExecutorGasRefused(chainId, refusal)
      yield* Effect.logError(
        refusal === "buyer_budget"
          ? `executor gas budget on ${chainId}: ${buyer} has used ${mine} of ${policy.budgetPerBuyer} gas in ${policy.budgetWindowSeconds} s; not sending ${amount} more`
          : `executor gas budget on ${chainId}: ${total} of ${policy.budgetTotal} gas used in ${policy.budgetWindowSeconds} s; not sending ${amount} more for ${buyer}`
      )
      return refusal
    }).pipe(permit.withPermit)

  return { reserve }
}
