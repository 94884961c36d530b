import { Clock, Context, Effect, Layer, Option, Result, Schema } from "effect"
import {
  InvalidState,
  MerchantNotFound,
  ParamsValidation,
  type PaymentNotFound
} from "../errors/DomainErrors.ts"
import type { GasPaid } from "../gas/GasPaid.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { MerchantId, type PartnerId, type PaymentId } from "../ids/Ids.ts"
import { Hold } from "../hold/Hold.ts"
import { captureWindow, newHold } from "../hold/HoldRules.ts"
import { type Page, type PageRequest, toPage } from "../paging/Page.ts"
import { CheckoutRedirect, Commitment, type Mode, Payment } from "../payment/Payment.ts"
import type { CancelReason, PaymentStatus } from "../payment/PaymentStatus.ts"
import { statusAt } from "../payment/StatusMachine.ts"
import { type MerchantRead, MerchantRepository } from "../ports/MerchantRepository.ts"
import { PayableCurrencies } from "../ports/PayableCurrencies.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { missingMerchant } from "./MissingMerchant.ts"
import { type Access, systemAccess } from "./Access.ts"
import { validateCheckout, validateFiatAmount, validateReferenceId } from "./CreateRules.ts"
import type { PartnerAccess } from "./Merchants.ts"
import { type Change, makePaymentChanges, nowSeconds, withStatusNow } from "./PaymentChanges.ts"
import { PaymentSettings } from "./PaymentSettings.ts"
import { traced } from "./Traced.ts"

/** A request to create a payment for one of the partner's merchants. */
export interface CreatePaymentInput {
  readonly partnerId: PartnerId
  /** Must name an active merchant of the partner in this mode, else `merchant_not_found`. */
  readonly merchantId: string
  readonly mode: Mode
  readonly amount: { readonly unit: string; readonly value: string }
  readonly referenceId: string
  readonly checkout?: { readonly successUrl?: string | undefined; readonly errorUrl?: string | undefined } | undefined
  /** How current the merchant must be read (default `current`, see {@link MerchantRead}). */
  readonly merchantRead?: MerchantRead | undefined
  /**
   * `manual`: the buyer's funds are held in the escrow until the merchant captures them (`Holds`).
   * `windowSeconds` is how long the merchant has to capture, counted from the payment's expiry;
   * `voidAtDeadline` (default true) gives what is still held back to the buyer at the deadline.
   */
  readonly capture?: {
    readonly method: "automatic" | "manual"
    readonly windowSeconds?: number | undefined
    readonly voidAtDeadline?: boolean | undefined
  } | undefined
}

// The capture window asked for, within its bounds for the mode.
const captureWindowOf = (input: CreatePaymentInput): Result.Result<number | undefined, ParamsValidation> => {
  const capture = input.capture
  if (capture === undefined || capture.method === "automatic") {
    return capture?.windowSeconds === undefined && capture?.voidAtDeadline === undefined
      ? Result.succeed(undefined)
      : Result.fail(new ParamsValidation({ message: 'captureWindowSeconds and voidAtDeadline apply only to capture "manual".' }))
  }
  const seconds = capture.windowSeconds ?? captureWindow.defaultSeconds
  const min = input.mode === "live" ? captureWindow.liveMinSeconds : captureWindow.sandboxMinSeconds
  return Number.isSafeInteger(seconds) && seconds >= min && seconds <= captureWindow.maxSeconds
    ? Result.succeed(seconds)
    : Result.fail(new ParamsValidation({ message: `captureWindowSeconds must be an integer from ${min} to ${captureWindow.maxSeconds}.` }))
}

// A payment of a mode no configured network serves could never be paid: said at creation.
const noNetworkFor = (mode: Mode) =>
  mode === "sandbox"
    ? "This service accepts no token on a test network, so a sandbox payment could never be paid: test payments never use a real network. Create it with a live key, or ask the operator to configure a test network."
    : "This service accepts no token on a real network, so a live payment could never be paid: live payments never use a test network. Create it with a sandbox key, or ask the operator to configure a real network."

/** Which of the partner's payments to list (API rules §11 filters), as decoded values. */
export interface ListPaymentsInput {
  /** Stored statuses to include; empty means all. */
  readonly statuses: ReadonlyArray<PaymentStatus>
  readonly merchantId?: MerchantId | undefined
  readonly referenceId?: string | undefined
  /** Only payments opened from this payment link. */
  readonly linkId?: string | undefined
  /** Creation time bounds, Unix milliseconds: inclusive start, exclusive end. */
  readonly createdFrom?: number | undefined
  readonly createdBefore?: number | undefined
  /** By creation: `desc` (newest first) or `asc`. */
  readonly order: "asc" | "desc"
  readonly page: PageRequest
}

/**
 * The payment use cases over the ports. Every change is a compare-and-set on `stateVersion`
 * together with its outbox event, so concurrent callers cannot both win.
 */
export class Payments extends Context.Service<Payments, {
  /**
   * Creates a payment waiting for the buyer, with its `payment.created` event. Why its redirect was
   * turned off, if it was, is `checkoutWarning` of the same input.
   */
  readonly create: (input: CreatePaymentInput) => Effect.Effect<Payment, ParamsValidation | MerchantNotFound>
  /** Validates a create (body rules, then the merchant) and builds the payment it would store; writes nothing. */
  readonly validate: (input: CreatePaymentInput) => Effect.Effect<Payment, ParamsValidation | MerchantNotFound>
  /** The payment as of now (expiry applied on read), if `access` may see it. */
  readonly find: (access: Access, id: string) => Effect.Effect<Payment, PaymentNotFound>
  /** A page of the partner's payments (statuses as stored, expiry applied on read). */
  readonly list: (access: PartnerAccess, input: ListPaymentsInput) => Effect.Effect<Page<Payment>>
  /** Cancels a payment that still waits for the buyer. */
  readonly cancel: (access: Access, id: string, reason: CancelReason) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
  /** Records the chain's verdict on a processing payment, with the gas the service paid for its transaction (if any). */
  readonly settleOutcome: (
    id: PaymentId,
    outcome: "succeeded" | "failed",
    txHash: string | null,
    gas?: GasPaid
  ) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
  /** Records the expiry of a payment past `expiresAt` (the worker's job; reads already show it). */
  readonly expire: (id: PaymentId) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
}>()("@paygate/domain/Payments") {
  /** The use cases over the ports in context. */
  static readonly layer = Layer.effect(
    Payments,
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const merchants = yield* MerchantRepository
      const ids = yield* IdGenerator
      // Settings are taken when the use case is built, like its ports (requests run without them).
      const settings = yield* PaymentSettings
      const { currencies } = yield* PayableCurrencies

      const { change, eventFor, load } = makePaymentChanges(repo, ids)

      const validate = Effect.fnUntraced(function*(input: CreatePaymentInput) {
        const { currency, value } = yield* validateFiatAmount(input.amount)
        const payable = currencies?.[input.mode]
        if (payable !== undefined && payable.size === 0) {
          return yield* new ParamsValidation({ message: noNetworkFor(input.mode) })
        }
        if (payable !== undefined && !payable.has(currency)) {
          return yield* new ParamsValidation({
            message: `No token this service accepts can be priced in ${currency}, so a buyer could not pay it; create payments in ${[...payable].sort().join(", ")}.`
          })
        }
        const referenceId = yield* validateReferenceId(input.referenceId)
        const captureSeconds = yield* Effect.fromResult(captureWindowOf(input))
        const redirect = validateCheckout(input.mode, input.checkout)
        // Body rules first, then the merchant lookup (API rules §1 order); deleted merchants take no payments.
        const merchant = Schema.is(MerchantId)(input.merchantId)
          ? yield* merchants.findById(input.partnerId, input.mode, input.merchantId, input.merchantRead)
          : Option.none()
        if (Option.isNone(merchant)) return yield* yield* missingMerchant(merchants, input.partnerId, input.mode, input.merchantId)
        if (merchant.value.deleted) return yield* new MerchantNotFound({ message: `No merchant ${input.merchantId}.` })
        const millis = yield* Clock.currentTimeMillis
        const expiresAt = Math.floor(millis / 1000) + settings.lifetimeSeconds
        // Every field is validated above or made here: the constructor's checks would only repeat them.
        return new Payment({
          id: yield* ids.make("payment"),
          partnerId: input.partnerId,
          merchantId: merchant.value.id,
          mode: input.mode,
          referenceId,
          currency,
          value,
          status: "requires_action",
          stateVersion: 1,
          checkout: redirect === null ? null : new CheckoutRedirect(redirect),
          expiresAt,
          commitment: null,
          cancelledReason: null,
          cancelledAt: null,
          createdAt: millis,
          updatedAt: millis,
          ...(captureSeconds === undefined ? {} : { hold: newHold(expiresAt, captureSeconds, input.capture?.voidAtDeadline ?? true) })
        }, { disableChecks: true })
      }, traced("Payments.validate"))

      const create = Effect.fnUntraced(function*(input: CreatePaymentInput) {
        const payment = yield* validate(input)
        yield* repo.insert(payment, [yield* eventFor("payment.created", payment, {})])
        return payment
      }, traced("Payments.create"))

      // Combinators, not a generator: the status poll reads through here.
      const spanFind = traced("Payments.find")
      const find = (access: Access, id: string) =>
        spanFind(Effect.flatMap(load(access, id), (payment) => Effect.map(nowSeconds, (now) => withStatusNow(payment, now))))

      const list = Effect.fn("Payments.list")(function*(access: PartnerAccess, input: ListPaymentsInput) {
        const rows = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          merchantId: input.merchantId,
          statuses: input.statuses,
          referenceId: input.referenceId,
          linkId: input.linkId,
          createdFrom: input.createdFrom,
          createdBefore: input.createdBefore,
          order: input.order,
          after: input.page.after,
          limit: input.page.limit + 1
        })
        const now = yield* nowSeconds
        return toPage(rows.map((p) => withStatusNow(p, now)), input.page.limit)
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

      const settleOutcome = Effect.fn("Payments.settleOutcome")(
        function*(id: PaymentId, outcome: "succeeded" | "failed", txHash: string | null, gas?: GasPaid) {
          return yield* change(systemAccess, id, (latest) =>
            latest.status !== "processing" || latest.commitment === null
              ? Result.fail(new InvalidState({ message: `Payment ${id} is ${latest.status}, not processing.` }))
              : Result.succeed(Option.some<Change>(
                outcome === "succeeded" && latest.hold !== undefined
                  // A held payment's authorization moved the funds into the escrow: held, not yet the merchant's.
                  ? {
                    event: { _tag: "EscrowAuthorized" },
                    type: "payment.authorized",
                    patch: (p) => ({
                      commitment: new Commitment({ ...p.commitment!, txHash: txHash ?? p.commitment!.txHash }),
                      hold: new Hold({ ...p.hold!, authorized: p.commitment!.tokenAmount }, { disableChecks: true })
                    }),
                    stage: { txHash, captureBefore: latest.hold.captureBefore },
                    gas
                  }
                  : {
                    event: { _tag: outcome === "succeeded" ? "ChainSucceeded" : "ChainFailed" },
                    type: outcome === "succeeded" ? "payment.succeeded" : "payment.failed",
                    patch: (p) => ({ commitment: new Commitment({ ...p.commitment!, txHash: txHash ?? p.commitment!.txHash }) }),
                    stage: { txHash },
                    gas
                  }
              ))
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

      return Payments.of({ create, validate, find, list, cancel, settleOutcome, expire })
    })
  )
}
