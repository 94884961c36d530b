import { Context, type Effect } from "effect"

/** A token bucket of sign-in attempts: `burst` at once, `perSecond` coming back. */
export interface AttemptAllowance {
  /** What it counts: a client (its address, an IPv6 client's /64) or everyone. */
  readonly key: string
  readonly burst: number
  readonly perSecond: number
}

/**
 * Sign-in attempts, counted where every API process sees them. An attempt takes one from each of
 * its allowances at once, or from none; a successful sign-in gives its attempt back, so only
 * failures stay counted. Times are Unix milliseconds. Infrastructure failures are defects.
 */
export class SignInThrottleStore extends Context.Service<SignInThrottleStore, {
  /** Takes one attempt from every allowance: `undefined` when taken, else the seconds until all have one (`Retry-After`). */
  readonly take: (allowances: ReadonlyArray<AttemptAllowance>, now: number) => Effect.Effect<number | undefined>
  /** Gives back an attempt taken from each allowance. */
  readonly giveBack: (allowances: ReadonlyArray<AttemptAllowance>) => Effect.Effect<void>
}>()("@paygate/domain/SignInThrottleStore") {}
