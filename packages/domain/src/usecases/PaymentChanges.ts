import { Clock, Effect, Option, Result } from "effect"
import { InvalidState, PaymentExpired, PaymentNotFound } from "../errors/DomainErrors.ts"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { IdGenerator } from "../ids/IdGenerator.ts"
import type { PaymentId } from "../ids/Ids.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import { Payment } from "../payment/Payment.ts"
import type { PaymentEventType } from "../payment/PaymentEventType.ts"
import { type PaymentEvent, statusAt, transition } from "../payment/StatusMachine.ts"
import type { DuplicateCommitment, PaymentRepository } from "../ports/PaymentRepository.ts"
import { type Access, canSee } from "./Access.ts"

/**
 * A change a use case wants to make: the machine event, its outbox event type (`null`: a change no
 * one is told of, such as a merchant's request the worker has yet to carry out) and the new fields.
 */
export interface Change {
  readonly event: PaymentEvent
  readonly type: PaymentEventType | null
  readonly patch: (payment: Payment, nowSeconds: number) => Partial<Payment>
  readonly stage: Record<string, unknown>
  /** Gas the service paid for the transaction the change observes. */
  readonly gas?: GasPaid | undefined
}

/** A use case's verdict on the current state: refuse, change nothing (`none`), or change. */
export type Decision<E> = Result.Result<Option.Option<Change>, E>

// Bound on compare-and-set retries; each retry means another writer changed the payment meanwhile.
const maxAttempts = 5

/** Unix seconds from `Clock`. */
export const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/** The payment as reported at `now` (expiry applied on read). */
export const withStatusNow = (payment: Payment, now: number): Payment => {
  const status = statusAt(payment, now)
  return status === payment.status ? payment : new Payment({ ...payment, status })
}

/** Why a payment that no longer waits for the buyer refuses a buyer action. */
export const notWaiting = (payment: Payment, now: number): PaymentExpired | InvalidState =>
  statusAt(payment, now) === "expired"
    ? new PaymentExpired({ message: `Payment ${payment.id} has expired.` })
    : new InvalidState({ message: `Payment ${payment.id} is ${payment.status}.` })

/**
 * Loading and changing payments, shared by the payment use cases: every change is a
 * compare-and-set on `stateVersion` together with its outbox event, retried on a lost race.
 */
export const makePaymentChanges = (repo: PaymentRepository["Service"], ids: IdGenerator["Service"]) => {
  // The payment is a valid one already and the id is made here: the event's checks would only repeat its own.
  const eventFor = (type: PaymentEventType, payment: Payment, stage: Record<string, unknown>) =>
    Effect.map(ids.make("event"), (id) =>
      new OutboxEvent({
        id,
        type,
        partnerId: payment.partnerId,
        paymentId: payment.id,
        payment,
        stage,
        createdAt: Math.floor(payment.updatedAt / 1000)
      }, { disableChecks: true }))

  // Combinators, not a generator: every payment read (the status poll among them) goes through here.
  const load = (access: Access, id: string): Effect.Effect<Payment, PaymentNotFound> =>
    Effect.flatMap(repo.findById(id as PaymentId), (found) =>
      Option.isNone(found) || !canSee(access, found.value)
        ? Effect.fail(new PaymentNotFound({ message: `No payment ${id}.` }))
        : Effect.succeed(found.value))

  /**
   * Applies `decide`'s change with compare-and-set, retried on a lost race. A commitment another
   * payment already holds is a defect unless `onDuplicate` turns it into the caller's error.
   * `loaded`: the payment as the caller just read it, decided on first instead of reading it again
   * (a stale one only loses the compare-and-set, and the retry reads the payment as it stands).
   */
  const change = <E, D = never>(
    access: Access,
    id: string,
    decide: (current: Payment, now: number) => Decision<E>,
    onDuplicate: (error: DuplicateCommitment) => D | undefined = () => undefined,
    loaded?: Payment
  ): Effect.Effect<Payment, E | D | PaymentNotFound> =>
    Effect.gen(function*() {
      for (let attempt = 1; ; attempt++) {
        const current = attempt === 1 && loaded !== undefined ? loaded : yield* load(access, id)
        const millis = yield* Clock.currentTimeMillis
        const now = Math.floor(millis / 1000)
        const decision = decide(current, now)
        if (Result.isFailure(decision)) return yield* Effect.fail(decision.failure)
        if (Option.isNone(decision.success)) return withStatusNow(current, now)
        const { event, gas, patch, stage, type } = decision.success.value
        const status = Result.getOrThrow(transition(current.status, event))
        const next = new Payment({
          ...current,
          ...patch(current, now),
          status,
          stateVersion: current.stateVersion + 1,
          updatedAt: Math.max(millis, current.updatedAt)
        })
        const events = type === null ? [] : [yield* eventFor(type, next, stage)]
        const written = yield* repo.update(next, events, gas).pipe(
          Effect.catchTag("DuplicateCommitment", (error) => {
            const mapped = onDuplicate(error)
            return mapped === undefined ? Effect.die(error) : Effect.fail(mapped)
          })
        )
        if (written) return next
        if (attempt >= maxAttempts) return yield* Effect.die(new Error(`payment ${id} kept changing under us`))
      }
    })

  return { eventFor, load, change }
}
