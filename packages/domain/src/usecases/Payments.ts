import { Clock, Context, Effect, Layer, Option, Result, Schema } from "effect"
import {
  InvalidParams,
  InvalidState,
  ParamsValidation,
  PaymentExpired,
  PaymentNotFound,
  QuoteExpired,
  SanctionedUser
} from "../errors/ApiErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { MerchantId, PartnerId, PaymentId } from "../ids/Ids.ts"
import { pageRequest, type Page, toPage } from "../paging/Page.ts"
import { OutboxEvent } from "../payment/OutboxEvent.ts"
import { CheckoutRedirect, Commitment, type Mode, Payment } from "../payment/Payment.ts"
import type { PaymentEventType } from "../payment/PaymentEventType.ts"
import { type CancelReason, PaymentStatus } from "../payment/PaymentStatus.ts"
import { type PaymentEvent, statusAt, transition } from "../payment/StatusMachine.ts"
import { ChainGateway, type PaymentProof } from "../ports/ChainGateway.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import { type Access, canSee, systemAccess } from "./Access.ts"
import { validateCheckout, validateFiatAmount, validateReferenceId } from "./CreateRules.ts"
import type { PartnerAccess } from "./Merchants.ts"
import { PaymentSettings } from "./PaymentSettings.ts"

/** A request to create a payment for a merchant that the caller has already resolved. */
export interface CreatePaymentInput {
  readonly partnerId: PartnerId
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly amount: { readonly unit: string; readonly value: string }
  readonly referenceId: string
  readonly checkout?: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
}

/** `GET /v1/payments` query (contract §8); values arrive as strings and are validated here. */
export interface ListPaymentsInput {
  readonly status?: ReadonlyArray<string> | undefined
  readonly merchantId?: string | undefined
  readonly referenceId?: string | undefined
  /** Unix seconds, inclusive. */
  readonly startTs?: string | undefined
  /** Unix seconds, exclusive. */
  readonly endTs?: string | undefined
  readonly sortDir?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

/** A confirm: the option the buyer chose (already authenticated by the caller) and its proof. */
export interface ConfirmInput {
  readonly option: {
    readonly account: string
    readonly asset: string
    readonly tokenAmount: bigint
    /** Unix seconds; `null` for options that involve no rate. */
    readonly quoteExpiresAt: number | null
  }
  readonly proof: PaymentProof
  /** Digest of (option id, results): identical repeats of an accepted confirm are idempotent. */
  readonly fingerprint: string
}

type Decision<E> = Result.Result<Option.Option<Change>, E>
interface Change {
  readonly event: PaymentEvent
  readonly type: PaymentEventType
  readonly patch: (payment: Payment, nowSeconds: number) => Partial<Payment>
  readonly stage: Record<string, unknown>
}

// Bound on compare-and-set retries; each retry means another writer changed the payment meanwhile.
const maxAttempts = 5

/**
 * The payment use cases over the ports. Every change is a compare-and-set on `stateVersion`
 * together with its outbox event, so concurrent callers cannot both win.
 */
export class Payments extends Context.Service<Payments, {
  /** Creates a payment waiting for the buyer, with its `payment.created` event. */
  readonly create: (input: CreatePaymentInput) => Effect.Effect<Payment, ParamsValidation>
  /** The payment as of now (expiry applied on read), if `access` may see it. */
  readonly find: (access: Access, id: string) => Effect.Effect<Payment, PaymentNotFound>
  /** A page of the partner's payments (statuses as stored, expiry applied on read). */
  readonly list: (access: PartnerAccess, input: ListPaymentsInput) => Effect.Effect<Page<Payment>, InvalidParams>
  /** Cancels a payment that still waits for the buyer. */
  readonly cancel: (access: Access, id: string, reason: CancelReason) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
  /** The commitment point: moves the payment to `processing` once the proof checks out. */
  readonly confirm: (
    access: Access,
    id: string,
    input: ConfirmInput
  ) => Effect.Effect<
    Payment,
    PaymentNotFound | PaymentExpired | InvalidState | QuoteExpired | SanctionedUser | ParamsValidation
  >
  /** Records the chain's verdict on a processing payment. */
  readonly settleOutcome: (
    id: PaymentId,
    outcome: "succeeded" | "failed",
    txHash: string | null
  ) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
  /** Records the expiry of a payment past `expiresAt` (the worker's job; reads already show it). */
  readonly expire: (id: PaymentId) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
}>()("@paygate/domain/Payments") {
  /** The use cases over the ports in context. */
  static readonly layer = Layer.effect(
    Payments,
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const ids = yield* IdGenerator
      const chain = yield* ChainGateway
      const screening = yield* SanctionsScreening

      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

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
          }))

      const load = (access: Access, id: string) =>
        Effect.gen(function*() {
          const found = yield* repo.findById(id as PaymentId)
          if (Option.isNone(found) || !canSee(access, found.value)) {
            return yield* new PaymentNotFound({ message: `No payment ${id}.` })
          }
          return found.value
        })

      const withStatusNow = (payment: Payment, now: number) => {
        const status = statusAt(payment, now)
        return status === payment.status ? payment : new Payment({ ...payment, status })
      }

      // Applies a decision to the current state; retries when another writer won the race.
      const change = <E>(access: Access, id: string, decide: (current: Payment, now: number) => Decision<E>) =>
        Effect.gen(function*() {
          for (let attempt = 1; ; attempt++) {
            const current = yield* load(access, id)
            const millis = yield* Clock.currentTimeMillis
            const now = Math.floor(millis / 1000)
            const decision = decide(current, now)
            if (Result.isFailure(decision)) return yield* Effect.fail(decision.failure)
            if (Option.isNone(decision.success)) return withStatusNow(current, now)
            const { event, patch, stage, type } = decision.success.value
            const status = Result.getOrThrow(transition(current.status, event))
            const next = new Payment({
              ...current,
              ...patch(current, now),
              status,
              stateVersion: current.stateVersion + 1,
              updatedAt: Math.max(millis, current.updatedAt)
            })
            const written = yield* repo.update(next, [yield* eventFor(type, next, stage)])
            if (written) return next
            if (attempt >= maxAttempts) return yield* Effect.die(new Error(`payment ${id} kept changing under us`))
          }
        })

      const notWaiting = (payment: Payment, now: number) =>
        statusAt(payment, now) === "expired"
          ? new PaymentExpired({ message: `Payment ${payment.id} has expired.` })
          : new InvalidState({ message: `Payment ${payment.id} is ${payment.status}.` })

      const create = Effect.fn("Payments.create")(function*(input: CreatePaymentInput) {
        const { currency, value } = yield* validateFiatAmount(input.amount)
        const referenceId = yield* validateReferenceId(input.referenceId)
        const redirect = validateCheckout(input.checkout)
        const settings = yield* PaymentSettings
        const millis = yield* Clock.currentTimeMillis
        const payment = new Payment({
          id: yield* ids.make("payment"),
          partnerId: input.partnerId,
          merchantId: input.merchantId,
          mode: input.mode,
          referenceId,
          currency,
          value,
          status: "requires_action",
          stateVersion: 1,
          checkout: redirect === null ? null : new CheckoutRedirect(redirect),
          expiresAt: Math.floor(millis / 1000) + settings.lifetimeSeconds,
          commitment: null,
          cancelledReason: null,
          cancelledAt: null,
          createdAt: millis,
          updatedAt: millis
        })
        yield* repo.insert(payment, [yield* eventFor("payment.created", payment, {})])
        return payment
      })

      const find = Effect.fn("Payments.find")(function*(access: Access, id: string) {
        const payment = yield* load(access, id)
        return withStatusNow(payment, yield* nowSeconds)
      })

      const isStatus = Schema.is(PaymentStatus)
      const unixSeconds = (name: string, text: string | undefined) =>
        text === undefined
          ? Effect.succeed(undefined)
          : /^[0-9]{1,12}$/.test(text)
          ? Effect.succeed(Number(text) * 1000)
          : Effect.fail(new InvalidParams({ message: `${name} must be a Unix timestamp in seconds.` }))

      const list = Effect.fn("Payments.list")(function*(access: PartnerAccess, input: ListPaymentsInput) {
        const page = yield* pageRequest(input)
        const statuses = input.status ?? []
        const unknown = statuses.find((s) => !isStatus(s))
        if (unknown !== undefined) {
          return yield* new InvalidParams({ message: `status must be one of ${PaymentStatus.literals.join(", ")}.` })
        }
        if (input.sortDir !== undefined && input.sortDir !== "asc" && input.sortDir !== "desc") {
          return yield* new InvalidParams({ message: "sortDir must be asc or desc." })
        }
        const rows = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          merchantId: input.merchantId as MerchantId | undefined,
          statuses: statuses.filter(isStatus),
          referenceId: input.referenceId,
          createdFrom: yield* unixSeconds("startTs", input.startTs),
          createdBefore: yield* unixSeconds("endTs", input.endTs),
          order: input.sortDir === "asc" ? "asc" : "desc",
          after: page.after,
          limit: page.limit + 1
        })
        const now = yield* nowSeconds
        return toPage(rows.map((p) => withStatusNow(p, now)), page.limit)
      })

      const cancel = Effect.fn("Payments.cancel")((access: Access, id: string, reason: CancelReason) =>
        change(access, id, (current, now) =>
          statusAt(current, now) !== "requires_action"
            ? Result.fail(new InvalidState({ message: `Payment ${id} is ${statusAt(current, now)} and can no longer be cancelled.` }))
            : Result.succeed(Option.some<Change>({
              event: { _tag: "Cancelled" },
              type: "payment.cancelled",
              patch: (_, at) => ({ cancelledReason: reason, cancelledAt: at }),
              stage: { reason }
            }))
        )
      )

      const confirm = Effect.fn("Payments.confirm")(function*(access: Access, id: string, input: ConfirmInput) {
        const current = yield* load(access, id)
        const now = yield* nowSeconds
        // A repeat of the accepted confirm answers the current state; any other confirm is refused.
        if (current.commitment !== null) {
          if (current.commitment.fingerprint === input.fingerprint) return withStatusNow(current, now)
          return yield* new InvalidState({ message: `Payment ${id} was already confirmed with another option.` })
        }
        if (statusAt(current, now) !== "requires_action") return yield* notWaiting(current, now)
        if (input.option.quoteExpiresAt !== null && now >= input.option.quoteExpiresAt) {
          return yield* new QuoteExpired({ message: "The option's quote has expired; fetch the options again." })
        }
        if (yield* screening.isSanctioned(input.option.account)) {
          return yield* new SanctionedUser({ message: "This account cannot make payments." })
        }
        yield* chain.verify(input.proof)
        const commitment = new Commitment({
          kind: input.proof._tag === "Authorization" ? "pull" : "push",
          account: input.option.account,
          asset: input.option.asset,
          tokenAmount: input.option.tokenAmount,
          fingerprint: input.fingerprint,
          txHash: input.proof._tag === "Transaction" ? input.proof.txHash : null,
          confirmedAt: now
        })
        return yield* change(access, id, (latest, at): Decision<PaymentExpired | InvalidState> => {
          if (latest.commitment !== null) {
            return latest.commitment.fingerprint === input.fingerprint
              ? Result.succeed(Option.none())
              : Result.fail(new InvalidState({ message: `Payment ${id} was already confirmed with another option.` }))
          }
          if (statusAt(latest, at) !== "requires_action") return Result.fail(notWaiting(latest, at))
          return Result.succeed(Option.some({
            event: { _tag: input.proof._tag === "Authorization" ? "ConfirmAccepted" : "PushTransferSeen" },
            type: "payment.processing",
            patch: () => ({ commitment }),
            stage: { account: commitment.account, asset: commitment.asset, amount: commitment.tokenAmount.toString() }
          }))
        })
      })

      const settleOutcome = Effect.fn("Payments.settleOutcome")(
        function*(id: PaymentId, outcome: "succeeded" | "failed", txHash: string | null) {
          return yield* change(systemAccess, id, (latest) =>
            latest.status !== "processing" || latest.commitment === null
              ? Result.fail(new InvalidState({ message: `Payment ${id} is ${latest.status}, not processing.` }))
              : Result.succeed(Option.some<Change>({
                event: { _tag: outcome === "succeeded" ? "ChainSucceeded" : "ChainFailed" },
                type: outcome === "succeeded" ? "payment.succeeded" : "payment.failed",
                patch: (p) => ({ commitment: new Commitment({ ...p.commitment!, txHash: txHash ?? p.commitment!.txHash }) }),
                stage: { txHash }
              }))
          )
        }
      )

      const expire = Effect.fn("Payments.expire")(function*(id: PaymentId) {
        return yield* change(systemAccess, id, (latest, now) =>
          latest.status !== "requires_action" || now < latest.expiresAt
            ? Result.fail(new InvalidState({ message: `Payment ${id} is not due to expire.` }))
            : Result.succeed(Option.some<Change>({ event: { _tag: "Expired" }, type: "payment.expired", patch: () => ({}), stage: {} }))
        )
      })

      return Payments.of({ create, find, list, cancel, confirm, settleOutcome, expire })
    })
  )
}
