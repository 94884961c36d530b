/**
 * The worker: background jobs as Effect fibers, safe to run in several processes against one
 * database (every hand-over goes through leases and `FOR UPDATE SKIP LOCKED` claims).
 *
 * - **dispatcher**: completes the outbox events no endpoint can receive (their partner has none
 *   active), then claims the others (leased), fans each out to the active endpoints that receive
 *   it and completes it, in one transaction per batch.
 * - **deliverer**: claims due deliveries (leased, at most `perEndpointConcurrency` per endpoint
 *   per claim, skipping endpoints it is already busy with), sends each in its own fiber with at
 *   most `perEndpointConcurrency` in flight per endpoint and `concurrency` in all, so a slow or
 *   failing endpoint holds only its own slots and never delays the others; each attempt is
 *   recorded with its next retry (API rules §6) and counted in `paygate_webhook_deliveries_total`
 *   (`ProcessMetrics`).
 * - **expiry**: every `expiryIntervalMs`, moves `requires_action` payments past `expiresAt` to
 *   `expired` through `Payments.expire` (which writes `payment.expired`), and forgets idempotency
 *   keys past their 24 hours, both through their expiry indexes, at most `expiryBatch` of each a round.
 *
 * Shutdown (the layer's scope closing, e.g. on SIGTERM): claiming stops; the dispatcher's batch
 * is one uninterruptible transaction, so it finishes; attempts in flight get
 * `shutdownGraceMs` to finish and be recorded, then are interrupted and their leases released
 * (so another worker sends them at once). Work a killed process held comes back when its leases
 * end.
 *
 * @module
 */
import { ProcessMetrics } from "@paygate/observability"
import {
  type AttemptRecord,
  type ClaimedDelivery,
  DeliveryQueue,
  EventOutbox,
  ExpiringPayments,
  IdempotencyStore,
  Payments,
  WebhookDispatch,
  type WebhookEndpointId
} from "@paygate/domain"
import { Cause, Clock, Context, Deferred, Effect, FiberSet, Latch, Layer, Option, Queue } from "effect"
import { failurePauseMs, forever } from "./Forever.ts"

/** Tunables of the worker. */
export interface WorkerSettingsShape {
  /** Pause when there is nothing to do, before claiming again. */
  readonly pollIntervalMs: number
  /** Outbox events per claim (one fan-out transaction each). */
  readonly outboxBatch: number
  /** Outbox lease: a dispatcher that dies releases its events after this long. */
  readonly outboxLeaseMs: number
  /** Delivery lease; must exceed the request timeout (15 s) with margin. */
  readonly deliveryLeaseMs: number
  /** Attempts in flight in this worker, all endpoints together. */
  readonly concurrency: number
  /** Attempts in flight in this worker to one endpoint. */
  readonly perEndpointConcurrency: number
  readonly expiryIntervalMs: number
  /** Payments expired, and idempotency keys forgotten, per round at most. */
  readonly expiryBatch: number
  /** How long attempts in flight may take to finish on shutdown. */
  readonly shutdownGraceMs: number
}

/**
 * The defaults: polls every 50 ms (an idle worker runs about 40 cheap statements a second; a new
 * event waits 25 ms on average before it is fanned out), 64 attempts in flight (4 per endpoint),
 * expiry every second.
 */
export const defaultWorkerSettings: WorkerSettingsShape = {
  pollIntervalMs: 50,
  outboxBatch: 100,
  outboxLeaseMs: 30_000,
  deliveryLeaseMs: 60_000,
  concurrency: 64,
  perEndpointConcurrency: 4,
  expiryIntervalMs: 1_000,
  expiryBatch: 500,
  shutdownGraceMs: 20_000
}

/** Worker tunables (the host builds them, e.g. with {@link workerSettingsFrom}). */
export class WorkerSettings extends Context.Service<WorkerSettings, WorkerSettingsShape>()("@paygate/worker/WorkerSettings") {}

/**
 * The settings with what the operator configured (`WORKER_POLL_MS`, `WORKER_CONCURRENCY`,
 * `WORKER_PER_ENDPOINT_CONCURRENCY`, `WORKER_DELIVERY_LEASE_MS`, `WORKER_OUTBOX_LEASE_MS`,
 * `WORKER_SHUTDOWN_GRACE_MS`), each unset one its default ({@link defaultWorkerSettings}).
 */
export const workerSettingsFrom = (
  configured: Readonly<
    Record<
      "pollIntervalMs" | "concurrency" | "perEndpointConcurrency" | "deliveryLeaseMs" | "outboxLeaseMs" | "shutdownGraceMs",
      Option.Option<number>
    >
  >
): WorkerSettingsShape => {
  const d = defaultWorkerSettings
  const or = (value: Option.Option<number>, fallback: number) => Option.getOrElse(value, () => fallback)
  return {
    ...d,
    pollIntervalMs: Math.max(1, or(configured.pollIntervalMs, d.pollIntervalMs)),
    concurrency: Math.max(1, or(configured.concurrency, d.concurrency)),
    perEndpointConcurrency: Math.max(1, or(configured.perEndpointConcurrency, d.perEndpointConcurrency)),
    deliveryLeaseMs: Math.max(1_000, or(configured.deliveryLeaseMs, d.deliveryLeaseMs)),
    outboxLeaseMs: Math.max(1_000, or(configured.outboxLeaseMs, d.outboxLeaseMs)),
    shutdownGraceMs: Math.max(0, or(configured.shutdownGraceMs, d.shutdownGraceMs))
  }
}

/**
 * Runs `effect` until it succeeds, pausing after each failure (the database may be restarting),
 * while the work it finishes is still leased to this worker: for at most `windowMs`, and not once
 * `stopping()` holds. Answers `true` when it succeeded; else logs the last failure and answers
 * `false` (the work is then done again by whoever claims it when its lease ends). The pauses are
 * interruptible even within an uninterruptible round.
 */
export const whileLeased = (what: string, effect: Effect.Effect<unknown>, windowMs: number, stopping: () => boolean = () => false) =>
  Effect.gen(function*() {
    const giveUpAt = (yield* Clock.currentTimeMillis) + windowMs
    for (let failures = 1;; failures++) {
      const exit = yield* Effect.exit(effect)
      if (exit._tag === "Success") return true
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
      if (stopping() || (yield* Clock.currentTimeMillis) + failurePauseMs >= giveUpAt) {
        yield* Effect.logError(`worker: ${what} failed ${failures} time(s); left for when its lease ends`, exit.cause)
        return false
      }
      if (failures === 1) yield* Effect.logWarning(`worker: ${what} failed; trying again`, exit.cause)
      yield* Effect.interruptible(Effect.sleep(failurePauseMs))
    }
  })

/** The dispatcher: outbox events → deliveries; opens `wake` when it created some (for the deliverer). */
export const dispatcher = (wake: Latch.Latch): Effect.Effect<never, never, WorkerSettings | EventOutbox | WebhookDispatch> =>
  Effect.gen(function*() {
    const settings = yield* WorkerSettings
    const outbox = yield* EventOutbox
    const dispatch = yield* WebhookDispatch
    const round = Effect.gen(function*() {
      const unaddressed = yield* outbox.completeUnaddressed(settings.outboxBatch)
      // A full window of them: more may follow, and claiming now would only take those the slow way.
      if (unaddressed === settings.outboxBatch) return true
      const events = yield* outbox.claim(settings.outboxBatch, settings.outboxLeaseMs)
      if (events.length === 0) return unaddressed > 0
      // The events are claimed: fanning them out is retried (it is idempotent) rather than left
      // leased for the whole lease when the database blinks.
      let created = 0
      const fanOut = Effect.map(dispatch.dispatch(events), (n) => void (created = n))
      yield* whileLeased(`fanning out ${events.length} event(s)`, fanOut, settings.outboxLeaseMs / 2)
      if (created > 0) Latch.openUnsafe(wake)
      return true
    }).pipe(Effect.uninterruptible)
    return yield* forever("dispatcher", round, settings.pollIntervalMs)
  }) as Effect.Effect<never, never, WorkerSettings | EventOutbox | WebhookDispatch>

/**
 * The deliverer: due deliveries → signed HTTP attempts, bounded per endpoint and in all. It waits
 * on `wake` (opened when an attempt ends or the dispatcher created deliveries), at most
 * `pollIntervalMs` (deliveries of other instances, and retries, become due by themselves).
 */
export const deliverer = (wake: Latch.Latch): Effect.Effect<never, never, WorkerSettings | DeliveryQueue | WebhookDispatch> =>
  Effect.gen(function*() {
    const settings = yield* WorkerSettings
    const queue = yield* DeliveryQueue
    const dispatch = yield* WebhookDispatch
    const inFlight = new Map<WebhookEndpointId, number>()
    let total = 0

    // Set when shutdown begins: recording is then no longer retried.
    let stopping = false

    // Attempts are recorded in batches: finished attempts queue their record and wait for it.
    // Recording is retried while the deliveries are surely still leased (half the lease), so a
    // database restart does not make them be sent again.
    const toRecord = yield* Queue.unbounded<readonly [AttemptRecord, Deferred.Deferred<void>]>()
    yield* Effect.forkScoped(
      forever(
        "recorder",
        Effect.gen(function*() {
          const batch = yield* Queue.takeBetween(toRecord, 1, 500)
          const records = batch.map(([record]) => record)
          yield* whileLeased(`recording ${records.length} attempt(s)`, queue.recordMany(records), settings.deliveryLeaseMs / 2, () => stopping)
          // Either way the attempts are over: unrecorded ones are sent again when their lease ends.
          for (const [, recorded] of batch) yield* Deferred.succeed(recorded, undefined)
          return true
        }),
        settings.pollIntervalMs
      )
    )
    const recordAttempt = (record: AttemptRecord) =>
      Effect.gen(function*() {
        const recorded = yield* Deferred.make<void>()
        yield* Queue.offer(toRecord, [record, recorded] as const)
        yield* Deferred.await(recorded)
      })

    const attempts = yield* FiberSet.make<void>()
    // Runs before the set's own finalizer (which interrupts what is left) and before the recorder
    // stops: a grace period for attempts in flight to finish and be recorded.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        stopping = true
        if (total === 0) return
        yield* Effect.logInfo(`worker deliverer: waiting for ${total} attempt(s) in flight`)
        yield* FiberSet.awaitEmpty(attempts).pipe(Effect.timeoutOption(settings.shutdownGraceMs))
      })
    )

    const done = (endpointId: WebhookEndpointId) =>
      Effect.sync(() => {
        total--
        const left = (inFlight.get(endpointId) ?? 1) - 1
        if (left <= 0) inFlight.delete(endpointId)
        else inFlight.set(endpointId, left)
        Latch.openUnsafe(wake)
      })

    // Interruptible even though it is forked from an uninterruptible round.
    const attemptOne = (claimed: ClaimedDelivery) =>
      Effect.interruptible(dispatch.send(claimed)).pipe(
        Effect.tap((record) => ProcessMetrics.recordWebhookDelivery(ProcessMetrics.outcomeOf(record))),
        Effect.flatMap((record) => Effect.uninterruptible(recordAttempt(record))),
        Effect.onInterrupt(() => queue.release([claimed.delivery.id])),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.void
            : Effect.logError(`worker deliverer: attempt of ${claimed.delivery.id} failed`, cause)
        ),
        Effect.ensuring(done(claimed.endpoint.id)),
        Effect.asVoid
      )

    // While attempts are in flight, claim only once a quarter of the slots is free: fewer, fuller
    // claims (each is one statement) instead of one per finished attempt.
    const claimThreshold = Math.max(1, Math.floor(settings.concurrency / 4))

    const claimRound = Effect.gen(function*() {
      const free = settings.concurrency - total
      if (free <= 0 || (total > 0 && free < claimThreshold)) return 0
      const claimed = yield* queue.claim({
        limit: free,
        leaseMillis: settings.deliveryLeaseMs,
        perEndpoint: settings.perEndpointConcurrency,
        inFlight: new Map(inFlight)
      })
      for (const c of claimed) {
        total++
        inFlight.set(c.endpoint.id, (inFlight.get(c.endpoint.id) ?? 0) + 1)
        yield* FiberSet.run(attempts, attemptOne(c))
      }
      return claimed.length
    }).pipe(Effect.uninterruptible)

    const round = Effect.gen(function*() {
      // Closed before looking: whatever ends after this point opens it again.
      Latch.closeUnsafe(wake)
      const claimed = yield* claimRound
      if (claimed === 0) yield* wake.await.pipe(Effect.timeoutOption(settings.pollIntervalMs))
      return true
    })
    return yield* forever("deliverer", round, settings.pollIntervalMs)
  }).pipe(Effect.scoped) as Effect.Effect<never, never, WorkerSettings | DeliveryQueue | WebhookDispatch>

/** The expiry job: `requires_action` payments past `expiresAt` → `expired`; idempotency keys past their 24 hours forgotten. */
export const expiry: Effect.Effect<never, never, WorkerSettings | ExpiringPayments | Payments | IdempotencyStore> = Effect.gen(function*() {
  const settings = yield* WorkerSettings
  const finder = yield* ExpiringPayments
  const payments = yield* Payments
  const keys = yield* IdempotencyStore
  const round = Effect.gen(function*() {
    const nowMillis = yield* Clock.currentTimeMillis
    const now = Math.floor(nowMillis / 1000)
    const forgotten = yield* keys.purgeExpired(nowMillis, settings.expiryBatch)
    const due = yield* finder.due(now, settings.expiryBatch)
    yield* Effect.forEach(
      due,
      (id) =>
        payments.expire(id).pipe(
          // Another worker (or a confirm, or a cancel) got there first: nothing to do.
          Effect.catchTags({ InvalidState: () => Effect.void, PaymentNotFound: () => Effect.void })
        ),
      { concurrency: 8, discard: true }
    )
    return due.length >= settings.expiryBatch || forgotten >= settings.expiryBatch
  })
  return yield* forever("expiry", round, settings.expiryIntervalMs)
}) as Effect.Effect<never, never, WorkerSettings | ExpiringPayments | Payments | IdempotencyStore>

/** The webhook jobs and expiry, forked into the layer's scope (interrupted, gracefully, when it closes); every job: `Jobs.ts`. */
export const WorkerJobs: Layer.Layer<
  never,
  never,
  WorkerSettings | EventOutbox | DeliveryQueue | WebhookDispatch | ExpiringPayments | Payments | IdempotencyStore
> = Layer.effectDiscard(
  Effect.gen(function*() {
    const wake = yield* Latch.make(false)
    yield* Effect.forkScoped(dispatcher(wake))
    yield* Effect.forkScoped(deliverer(wake))
    yield* Effect.forkScoped(expiry)
    yield* Effect.logInfo("worker started: dispatcher, deliverer, expiry")
  })
)
