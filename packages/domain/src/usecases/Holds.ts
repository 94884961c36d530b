import { Context, Effect, Layer, Option, Result } from "effect"
import { InvalidState, ParamsValidation, type PaymentNotFound } from "../errors/DomainErrors.ts"
import { Hold, HoldOperation } from "../hold/Hold.ts"
import { captureTokens, uncommittedValue, voidAsked } from "../hold/HoldRules.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { Payment } from "../payment/Payment.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import type { Access } from "./Access.ts"
import { validateFiatAmount } from "./CreateRules.ts"
import { type Decision, makePaymentChanges } from "./PaymentChanges.ts"
import { traced } from "./Traced.ts"

// Why a held payment takes no capture or void now; `undefined` when it does.
const refusal = (payment: Payment, now: number, asking: string): InvalidState | undefined => {
  const hold = payment.hold
  if (hold === undefined) {
    return new InvalidState({ message: `Payment ${payment.id} was not created with capture "manual": it has nothing to ${asking}.` })
  }
  if (payment.status !== "authorized") {
    return new InvalidState({
      message: payment.status === "requires_action" || payment.status === "processing"
        ? `Payment ${payment.id} is ${payment.status}: its funds are not held yet.`
        : `Payment ${payment.id} is ${payment.status}: nothing is held any more.`
    })
  }
  if (voidAsked(hold)) return new InvalidState({ message: `Payment ${payment.id} is being voided.` })
  if (now >= hold.captureBefore) {
    return new InvalidState({ message: `Payment ${payment.id}'s capture deadline has passed; what is held goes back to the buyer.` })
  }
  return undefined
}

const asked = (hold: Hold, operation: HoldOperation) => new Hold({ ...hold, operations: [...hold.operations, operation] }, { disableChecks: true })

/**
 * The merchant's requests on a held payment (`capture: "manual"`): capture some or all of what the
 * escrow holds, or void the rest. A request is recorded at once, in the order asked, and carried out
 * on chain by the worker (`HoldExecutions`), whose webhooks report each outcome.
 */
export class Holds extends Context.Service<Holds, {
  /**
   * Asks to capture `amount` (the payment's currency, minor units; all that is not yet captured or
   * asked for when absent). Only while `authorized`, before the capture deadline and no void is asked.
   */
  readonly capture: (
    access: Access,
    id: string,
    amount: { readonly unit: string; readonly value: string } | undefined
  ) => Effect.Effect<Payment, PaymentNotFound | InvalidState | ParamsValidation>
  /** Asks to give everything not captured or asked for back to the buyer. */
  readonly void: (access: Access, id: string) => Effect.Effect<Payment, PaymentNotFound | InvalidState>
}>()("@paygate/domain/Holds") {
  /** The requests over the ports in context. */
  static readonly layer = Layer.effect(
    Holds,
    Effect.gen(function*() {
      const { change } = makePaymentChanges(yield* PaymentRepository, yield* IdGenerator)

      const capture = Effect.fn("Holds.capture")(function*(access: Access, id: string, amount: { readonly unit: string; readonly value: string } | undefined) {
        const asked_ = amount === undefined ? undefined : yield* validateFiatAmount(amount)
        return yield* change(access, id, (current, now): Decision<InvalidState | ParamsValidation> => {
          const refused = refusal(current, now, "capture")
          if (refused !== undefined) return Result.fail(refused)
          const hold = current.hold!
          const free = uncommittedValue(hold, current.value)
          if (asked_ !== undefined && asked_.currency !== current.currency) {
            return Result.fail(new ParamsValidation({ message: `amount must be in the payment's currency, ${current.currency}.` }))
          }
          const value = asked_?.value ?? free
          if (free === 0n) return Result.fail(new InvalidState({ message: `Everything payment ${id} holds is already captured or asked for.` }))
          if (value > free) {
            return Result.fail(new ParamsValidation({ message: `amount exceeds what payment ${id} still holds: at most ${free} ${current.currency} minor units.` }))
          }
          const tokenAmount = captureTokens(hold, current.value, value)
          if (tokenAmount <= 0n) {
            return Result.fail(new ParamsValidation({ message: "amount is too small to move any of the token held; capture more." }))
          }
          const operation = new HoldOperation({
            kind: "capture",
            tokenAmount,
            value,
            status: "pending",
            txHash: null,
            failure: null,
            requestedBy: "merchant",
            requestedAt: now,
            completedAt: null
          }, { disableChecks: true })
          return Result.succeed(Option.some({ event: { _tag: "HoldRequested" }, type: null, patch: () => ({ hold: asked(hold, operation) }), stage: {} }))
        })
      }, traced("Holds.capture"))

      const void_ = Effect.fn("Holds.void")(function*(access: Access, id: string) {
        return yield* change(access, id, (current, now): Decision<InvalidState> => {
          const refused = refusal(current, now, "void")
          if (refused !== undefined) return Result.fail(refused)
          // Nothing left to give back: the void would wait behind the captures and never be sent.
          if (uncommittedValue(current.hold!, current.value) === 0n) {
            return Result.fail(new InvalidState({ message: `Everything payment ${id} holds is already captured or asked for.` }))
          }
          return Result.succeed(Option.some({
            event: { _tag: "HoldRequested" },
            type: null,
            patch: () => ({ hold: voiding(current, now, "merchant") }),
            stage: {}
          }))
        })
      }, traced("Holds.void"))

      return Holds.of({ capture, void: void_ })
    })
  )
}

/** The hold with a void of everything not captured or asked for appended. */
export const voiding = (payment: Payment, now: number, requestedBy: HoldOperation["requestedBy"]): Hold => {
  const hold = payment.hold!
  const value = uncommittedValue(hold, payment.value)
  return asked(
    hold,
    new HoldOperation({
      kind: "void",
      tokenAmount: captureTokens(hold, payment.value, value),
      value,
      status: "pending",
      txHash: null,
      failure: null,
      requestedBy,
      requestedAt: now,
      completedAt: null
    }, { disableChecks: true })
  )
}
