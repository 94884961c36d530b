/**
 * When a failed delivery is tried again (API rules §6): after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
 * and 10 h, each ±10% jitter; after the last retry fails the delivery is `failed`. Pure: the
 * schedule is a parameter (tests run a fast one) and the jitter comes from the caller.
 *
 * @module
 */

/** Delays of API rules §6 before retries 1 to 7, in milliseconds. */
export const contractRetryDelays: ReadonlyArray<number> = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000
]

/** The jitter of API rules §6: ±10%. */
export const contractJitter = 0.1

/** A retry schedule: the delay before each retry, and the relative jitter applied to each. */
export interface RetrySchedule {
  readonly delays: ReadonlyArray<number>
  /** Relative jitter: a delay `d` becomes a value in `[d·(1−jitter), d·(1+jitter)]`. */
  readonly jitter: number
}

/** The contract's schedule. */
export const contractRetrySchedule: RetrySchedule = { delays: contractRetryDelays, jitter: contractJitter }

/** Attempts a delivery gets in all under `schedule`: the first plus one per delay. */
export const maxAttempts = (schedule: RetrySchedule): number => schedule.delays.length + 1

/**
 * The delay before the next attempt after `attemptsMade` attempts all failed, or `undefined`
 * when the schedule is exhausted (the delivery is then `failed`). `unit` is a number in `[0, 1)`
 * (a random draw) that places the delay within its jitter band: 0.5 is the nominal delay.
 */
export const retryDelay = (schedule: RetrySchedule, attemptsMade: number, unit: number): number | undefined => {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) return undefined
  const nominal = schedule.delays[attemptsMade - 1]
  if (nominal === undefined) return undefined
  const u = Math.min(Math.max(unit, 0), 1)
  return Math.max(0, Math.round(nominal * (1 + schedule.jitter * (2 * u - 1))))
}
