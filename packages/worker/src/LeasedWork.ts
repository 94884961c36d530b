/**
 * The loop of the chain jobs (the executor, the payouts): claim due work items with a lease, advance
 * each (several at once), and release each with its next check, or not at all once it is final.
 *
 * @module
 */
import { Cause, Effect, Option } from "effect"
import { forever } from "./Forever.ts"

/** Tunables every leased-work job has. */
export interface LeasedWorkSettings {
  /** Pause when nothing is due. */
  readonly pollIntervalMs: number
  /** Items claimed per round. */
  readonly batch: number
  /** Items advanced at once (their chain calls overlap; sends still queue per sending account). */
  readonly concurrency: number
  /** Lease on a claimed item: longer than advancing it (a send with its retries) can take. */
  readonly leaseMs: number
  /** Next check of an item whose transaction is not final yet. */
  readonly pendingRecheckMs: number
  /** Next check after the chain could not be asked. */
  readonly unknownRecheckMs: number
}

/** The defaults: checks every 500 ms, pending transactions every second, after an RPC failure every 5 s. */
export const defaultLeasedWorkSettings: LeasedWorkSettings = {
  pollIntervalMs: 500,
  batch: 50,
  concurrency: 16,
  leaseMs: 120_000,
  pendingRecheckMs: 1_000,
  unknownRecheckMs: 5_000
}

/** A configured millisecond setting (at least 1), else `fallback`. */
export const millisOr = (configured: Option.Option<number>, fallback: number) => Math.max(1, Option.getOrElse(configured, () => fallback))

/** The timings an operator may configure for a leased-work job (`<prefix>_POLL_MS`, …); each unset one is its default. */
export type ConfiguredLeasedWork = Readonly<Record<"pollIntervalMs" | "leaseMs" | "pendingRecheckMs" | "unknownRecheckMs", Option.Option<number>>>

/**
 * The defaults with the configured timings (`<prefix>_POLL_MS`, `<prefix>_LEASE_MS`,
 * `<prefix>_PENDING_RECHECK_MS`, `<prefix>_UNKNOWN_RECHECK_MS`). The lease is how long the items
 * of a worker that died wait before another worker takes them over.
 */
export const leasedWorkSettingsFrom = (configured: ConfiguredLeasedWork): LeasedWorkSettings => ({
  ...defaultLeasedWorkSettings,
  pollIntervalMs: millisOr(configured.pollIntervalMs, defaultLeasedWorkSettings.pollIntervalMs),
  leaseMs: millisOr(configured.leaseMs, defaultLeasedWorkSettings.leaseMs),
  pendingRecheckMs: millisOr(configured.pendingRecheckMs, defaultLeasedWorkSettings.pendingRecheckMs),
  unknownRecheckMs: millisOr(configured.unknownRecheckMs, defaultLeasedWorkSettings.unknownRecheckMs)
})

/** What a leased-work job works on. */
export interface LeasedWork<K, S extends string> {
  /** The job's name in logs. */
  readonly name: string
  readonly settings: LeasedWorkSettings
  /** Leases up to `limit` due items for `leaseMillis`. */
  readonly claim: (limit: number, leaseMillis: number) => Effect.Effect<ReadonlyArray<K>>
  /** Ends the lease on an item; its next check is due `afterMillis` from now. */
  readonly release: (key: K, afterMillis: number) => Effect.Effect<void>
  /** One round on an item: `final`, or a step saying when to look again. */
  readonly advance: (key: K) => Effect.Effect<S | "final">
  /** When to look again after `step`; also after a defect, as `unknown`. */
  readonly recheckAfter: (step: S | "unknown") => number
  /** The item in logs. */
  readonly describe: (key: K) => string
}

/** Runs the job forever; see the module documentation. A defect advancing an item is logged and checked again later. */
export const leasedWork = <K, S extends string>(work: LeasedWork<K, S>): Effect.Effect<never> => {
  /** Advances `key`, then releases it with its next check (a final one's lease is simply over); records it in `settled`. */
  const advanceOne = (key: K, settled: Set<K>) =>
    work.advance(key).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(Effect.logError(`worker ${work.name}: advancing ${work.describe(key)} failed`, cause), "unknown" as const)
      ),
      Effect.flatMap((step) => (step === "final" ? Effect.void : work.release(key, work.recheckAfter(step)))),
      Effect.tap(() => Effect.sync(() => settled.add(key)))
    )

  // The claim is uninterruptible: a stop that lands while its statement runs would otherwise lose
  // items the database has leased already. A stop then hands back every item not settled, under
  // way or not begun, instead of holding it for the rest of its lease.
  const round = Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const keys = yield* work.claim(work.settings.batch, work.settings.leaseMs)
      if (keys.length === 0) return false
      const settled = new Set<K>()
      yield* restore(Effect.forEach(keys, (key) => advanceOne(key, settled), { concurrency: work.settings.concurrency, discard: true })).pipe(
        Effect.onInterrupt(() => Effect.forEach(keys.filter((key) => !settled.has(key)), (key) => work.release(key, 0), { discard: true }))
      )
      return true
    })
  )
  return forever(work.name, round, work.settings.pollIntervalMs)
}
