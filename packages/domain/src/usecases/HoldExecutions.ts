import { Context, Effect, Layer, Option, Result } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import { Hold, HoldOperation } from "../hold/Hold.ts"
import { nextOperation, withOperation } from "../hold/HoldRules.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import type { PaymentId } from "../ids/Ids.ts"
import type { Payment } from "../payment/Payment.ts"
import type { PaymentEventType } from "../payment/PaymentEventType.ts"
import type { PaymentEvent } from "../payment/StatusMachine.ts"
import { EscrowChain, type EscrowBalance, type EscrowedPayment } from "../ports/EscrowChain.ts"
import { gasReader } from "../ports/GasMeter.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { systemAccess } from "./Access.ts"
import { voiding } from "./Holds.ts"
import { makePaymentChanges } from "./PaymentChanges.ts"

/**
 * Where one round left a held payment: `final` (no longer `authorized`), `pending` (a transaction is
 * on its way: look again soon), `unknown` (the chain could not be asked, or would not take a
 * transaction now: look again later), `waiting` (nothing to do until the merchant asks or the
 * capture deadline comes), `dormant` (past the deadline, left in the escrow for the buyer to reclaim:
 * only the reclaim is left to notice, which may never come).
 */
export type HoldStep = "final" | "pending" | "unknown" | "waiting" | "dormant"

const escrowedOf = (payment: Payment): EscrowedPayment | undefined => {
  const commitment = payment.commitment
  const authorization = commitment?.authorization
  if (commitment === null || commitment === undefined || authorization === null || authorization === undefined) return undefined
  if (authorization.escrow === undefined) return undefined
  return {
    asset: commitment.asset,
    account: commitment.account,
    authorizeBefore: authorization.validBefore,
    salt: authorization.nonce,
    terms: authorization.escrow
  }
}

const settled = (operation: HoldOperation, status: "succeeded" | "failed", now: number, failure: string | null = null) =>
  new HoldOperation({ ...operation, status, failure, completedAt: now }, { disableChecks: true })

/**
 * The worker's use case for held payments (`authorized` → `succeeded | voided | reclaimed`). The
 * escrow is the truth: each round reads what it holds (at the chain's confirmed head) and records
 * what changed there first, then sends the next operation the merchant asked for, one at a time in
 * the order asked. Sending twice is safe: a capture names what the escrow had captured before it
 * (a second send reverts), a void of nothing reverts. So a worker killed between sending and
 * recording, or two workers racing, never capture twice; a capture racing the buyer's reclaim is
 * decided by the chain, and the record follows whichever won. At the capture deadline the worker
 * voids what is still held when the merchant asked for that; otherwise it waits for the buyer's reclaim.
 */
export class HoldExecutions extends Context.Service<HoldExecutions, {
  readonly advance: (id: PaymentId) => Effect.Effect<HoldStep>
}>()("@paygate/domain/HoldExecutions") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    HoldExecutions,
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const escrow = yield* EscrowChain
      const gasOf = yield* gasReader
      const { change } = makePaymentChanges(repo, yield* IdGenerator)

      // Writes `hold` with the machine event and webhook, unless the payment moved meanwhile (then
      // the next round reads it again).
      const record = (
        payment: Payment,
        hold: Hold,
        event: PaymentEvent["_tag"],
        type: PaymentEventType | null,
        stage: Record<string, unknown> = {},
        gas?: GasPaid
      ) =>
        change(systemAccess, payment.id, (latest) =>
          latest.stateVersion !== payment.stateVersion
            ? Result.succeed(Option.none())
            : Result.succeed(Option.some({ event: { _tag: event } as PaymentEvent, type, patch: () => ({ hold }), stage, gas }))
        ).pipe(Effect.orDie)

      const gasOfOperation = (asset: string, operation: HoldOperation) =>
        operation.txHash === null ? Effect.succeed(undefined) : gasOf(asset, operation.txHash)

      // The escrow counts more captured than the record: the capture asked next went through.
      const captured = (payment: Payment, escrowed: EscrowedPayment, balance: EscrowBalance, now: number) =>
        Effect.gen(function*() {
          const hold = payment.hold!
          const next = nextOperation(hold)
          if (next === undefined || next.operation.kind !== "capture" || hold.captured + next.operation.tokenAmount !== balance.captured) {
            yield* Effect.logError(
              `holds: the escrow counts ${balance.captured} captured of ${payment.id}, the record ${hold.captured}: not a capture this service asked for`
            )
            return "unknown" as const
          }
          const { index, operation } = next
          const done = withOperation(hold, index, settled(operation, "succeeded", now))
          const after = new Hold({
            ...done,
            captured: done.captured + operation.tokenAmount,
            capturedValue: done.capturedValue + operation.value
          }, { disableChecks: true })
          const complete = after.captured === after.authorized
          yield* record(
            payment,
            after,
            complete ? "CaptureCompleted" : "PartCaptured",
            complete ? "payment.succeeded" : "payment.captured",
            { capture: { amount: operation.tokenAmount.toString(), value: operation.value.toString(), txHash: operation.txHash } },
            yield* gasOfOperation(escrowed.asset, operation)
          )
          return "recorded" as const
        })

      // Nothing is held any more and no capture is missing from the record: a void of ours, else the buyer's reclaim.
      const released = (payment: Payment, escrowed: EscrowedPayment, now: number) =>
        Effect.gen(function*() {
          const hold = payment.hold!
          const next = nextOperation(hold)
          const how = next !== undefined && next.operation.kind === "void" ? "voided" as const : "reclaimed" as const
          const operations = hold.operations.map((op) =>
            op.status !== "pending" && op.status !== "submitted"
              ? op
              : op.kind === "void"
              ? settled(op, "succeeded", now)
              : settled(op, "failed", now, "The buyer reclaimed what was held before this capture reached the chain.")
          )
          const after = new Hold({ ...hold, operations, released: how }, { disableChecks: true })
          const anyCaptured = hold.captured > 0n
          const gas = how === "voided" ? yield* gasOfOperation(escrowed.asset, next!.operation) : undefined
          yield* record(
            payment,
            after,
            anyCaptured ? "CaptureCompleted" : how === "voided" ? "Voided" : "Reclaimed",
            anyCaptured ? "payment.succeeded" : how === "voided" ? "payment.voided" : "payment.reclaimed",
            { released: how, amount: (hold.authorized - hold.captured).toString() },
            gas
          )
          return "final" as const
        })

      // Sends the next operation (again, when its last transaction failed or was dropped) and records its hash.
      const send = (payment: Payment, escrowed: EscrowedPayment, balance: EscrowBalance, now: number, index: number, operation: HoldOperation) =>
        Effect.gen(function*() {
          const hold = payment.hold!
          if (operation.kind === "capture" && now >= hold.captureBefore) {
            const failed = settled(operation, "failed", now, "The capture deadline passed before this capture reached the chain.")
            yield* record(payment, withOperation(hold, index, failed), "HoldRequested", "payment.capture_failed", {
              capture: { amount: operation.tokenAmount.toString(), value: operation.value.toString(), reason: failed.failure }
            })
            return "recorded" as const
          }
          const replaced = yield* gasOfOperation(escrowed.asset, operation)
          const txHash = operation.kind === "capture"
            ? yield* escrow.capture(escrowed, operation.tokenAmount, balance.captured)
            : yield* escrow.void(escrowed)
          const sent = new HoldOperation({ ...operation, status: "submitted", txHash }, { disableChecks: true })
          yield* record(payment, withOperation(hold, index, sent), "HoldRequested", null, {}, replaced)
          return "recorded" as const
        }).pipe(
          Effect.catchTag("SubmissionRefused", (error) =>
            Effect.as(Effect.logInfo(`holds: ${operation.kind} of ${payment.id} not sent now; trying again later`, error.message), "unknown" as const))
        )

      const advance: (id: PaymentId) => Effect.Effect<HoldStep> = Effect.fn("HoldExecutions.advance")(function*(id: PaymentId) {
        const found = yield* repo.findById(id)
        if (Option.isNone(found)) return "final" as const
        const payment = found.value
        const hold = payment.hold
        const escrowed = escrowedOf(payment)
        if (payment.status !== "authorized" || hold === undefined || escrowed === undefined) return "final" as const
        // `recorded`: this round changed the payment, and what that leaves to do is done at once.
        const step: HoldStep | "recorded" = yield* Effect.gen(function*() {
          const balance = yield* escrow.balance(escrowed)
          // The chain's clock: the escrow checks its deadlines against it, not against ours.
          const now = yield* escrow.chainTime(escrowed.asset)
          if (balance.captured > hold.captured) return yield* captured(payment, escrowed, balance, now)
          if (balance.held === 0n && balance.captured === hold.captured) return yield* released(payment, escrowed, now)
          const next = nextOperation(hold)
          if (next === undefined) {
            if (now < hold.captureBefore) return "waiting" as const
            if (!hold.voidAtDeadline) return "dormant" as const
            yield* record(payment, voiding(payment, now, "deadline"), "HoldRequested", null)
            return "recorded" as const
          }
          const { index, operation } = next
          if (operation.status === "submitted" && operation.txHash !== null) {
            const outcome = yield* escrow.observe(escrowed.asset, operation.txHash)
            if (outcome === "pending" || outcome === "unknown") return outcome
            // Mined: the escrow's confirmed state shows what it did at the next round.
            if (outcome === "succeeded") return "pending" as const
          }
          return yield* send(payment, escrowed, balance, now, index, operation)
        }).pipe(
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.as(Effect.logWarning(`holds: reading the escrow of ${id} failed; retrying later`, error.message), "unknown" as const))
        )
        // A recorded change may leave more to do at once (a capture seen, then the next one to send).
        return step === "recorded" ? yield* advance(id) : step
      })

      return HoldExecutions.of({ advance })
    })
  )
}
