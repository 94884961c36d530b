/**
 * The loop of the chain jobs (the executor, the payouts): claim due work items with a lease, advance
 * each (several at once), and release each with its next check, or not at all once it is final.
 *
 * @module
 */
import { Cause, Config, Effect } from "effect"
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

/** A millisecond setting from the environment variable `name` (at least 1), else `fallback`. */
export const millisConfig = (name: string, fallback: number) =>
  Config.Int(name).pipe(Config.withDefault(fallback), Config.map((ms) => Math.max(1, ms)))

/**
 * The defaults with `<prefix>_POLL_MS`, `<prefix>_LEASE_MS`, `<prefix>_PENDING_RECHECK_MS` and
 * `<prefix>_UNKNOWN_RECHECK_MS` from the environment. The lease is how long the items of a worker
 * that died wait before another worker takes them over.
 */
export const leasedWorkSettingsFromConfig = (prefix: string) =>
  Config.all({
    pollIntervalMs: millisConfig(`${prefix}_POLL_MS`, defaultLeasedWorkSettings.pollIntervalMs),
    leaseMs: millisConfig(`${prefix}_LEASE_MS`, defaultLeasedWorkSettings.leaseMs),
    pendingRecheckMs: millisConfig(`${prefix}_PENDING_RECHECK_MS`, defaultLeasedWorkSettings.pendingRecheckMs),
    unknownRecheckMs: millisConfig(`${prefix}_UNKNOWN_RECHECK_MS`, defaultLeasedWorkSettings.unknownRecheckMs)
  }).pipe(Config.map((read): LeasedWorkSettings => ({ ...defaultLeasedWorkSettings, ...read })))

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
  const advanceOne = (key: K) =>
    work.advance(key).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(Effect.logError(`worker ${work.name}: advancing ${work.describe(key)} failed`, cause), "unknown" as const)
      ),
      Effect.flatMap((step) => (step === "final" ? Effect.void : work.release(key, work.recheckAfter(step)))),
      // Stopping: hand the item back at once instead of holding it for the rest of the lease.
      Effect.onInterrupt(() => work.release(key, 0))
    )

  const round = Effect.gen(function*() {
    const keys = yield* work.claim(work.settings.batch, work.settings.leaseMs)
    if (keys.length === 0) return false
    yield* Effect.forEach(keys, advanceOne, { concurrency: work.settings.concurrency, discard: true })
    return true
  })
  return forever(work.name, round, work.settings.pollIntervalMs)
}
