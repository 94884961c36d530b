import type { GasPaid } from "../gas/GasPaid.ts"
import { gasIfMined, gasReader } from "../ports/GasMeter.ts"
import { Clock, Context, Effect, Layer, Metric, Option } from "effect"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { awaitsApproval, Payout, type PayoutStatus, type SignedTransfer } from "../payout/Payout.ts"
import { assetMode, NetworkModes, offNetwork } from "../ports/NetworkModes.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { PayoutLimits, payoutsHeld } from "../ports/PayoutLimits.ts"
import { type PayoutKey, PayoutRepository } from "../ports/PayoutRepository.ts"
import { Payouts, type PayoutTransfer } from "../ports/Payouts.ts"
import { RefundRepository } from "../ports/RefundRepository.ts"
import { makePayoutWrites } from "./PayoutWrites.ts"

/**
 * Where one round left a payout: `final` (completed or failed, or gone), `pending` (on its way:
 * check again soon), `unknown` (the chain could not be asked or cannot pay out yet: check again
 * later) or `retry` (an attempt failed: the next one is due after a pause).
 */
export type PayoutStep = "final" | "pending" | "unknown" | "retry"

/** How persistent payouts are. */
export interface PayoutPolicyShape {
  /** Attempts (transfers that revert) before a payout is `failed`. */
  readonly maxAttempts: number
}

/** The payout policy; by default five attempts. */
export const PayoutPolicy = Context.Reference<PayoutPolicyShape>("@paygate/domain/PayoutPolicy", {
  defaultValue: () => ({ maxAttempts: 5 })
})

// Bound on compare-and-set retries; each retry means another writer changed the payout or payment meanwhile.
const maxRaces = 5

/**
 * The worker's payout use case (settlements and refunds, API rules §4 and §11): sends the payout's
 * transfer from the collection address, then watches it until the chain decides.
 *
 * Sent once: the signed transfer is recorded (compare-and-set on the payout's version) before it
 * is broadcast, and a recorded transfer is only ever broadcast again byte for byte; a new transfer
 * is signed only once the chain proved the recorded one moved nothing (`reverted`, `dropped`). Of
 * two workers on one payout, one records; the other broadcasts nothing.
 *
 * A reverted transfer (on chain, or already when estimated) is an attempt: after
 * `PayoutPolicy.maxAttempts` the payout is `failed`, until the partner or the operator retries it
 * (`PayoutRetries`; it keeps its last transfer, followed here before any new one is signed). A transfer included without paying the
 * recipient fails it at once. Completion and failure commit with the payment's next version and,
 * for a settlement's completion, `payment.settled`; a refund payout keeps its refund record in step.
 * A payout on a network of the other mode than its payment's (`NetworkModes`) is failed unsent.
 *
 * Over a limit (`PayoutLimits`), a payout is not signed: it is held for an owner's approval
 * (`PayoutApprovals`), the reason recorded on it, logged and counted once; the queue skips it until
 * it is approved. The limits are looked at before signing, and checked again with the recording of
 * the signed transfer (`PayoutLimits.admit`), in turn with every other payout of the token: two
 * payouts that each fit the day alone, but not together, are never both sent, whichever workers
 * advance them. An approved payout is signed whatever the limits.
 */
export class PayoutExecutions extends Context.Service<PayoutExecutions, {
  readonly advance: (key: PayoutKey) => Effect.Effect<PayoutStep>
}>()("@paygate/domain/PayoutExecutions") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    PayoutExecutions,
    Effect.gen(function*() {
      const repo = yield* PayoutRepository
      const payments = yield* PaymentRepository
      const refunds = yield* RefundRepository
      const chain = yield* Payouts
      const ids = yield* IdGenerator
      const { maxAttempts } = yield* PayoutPolicy
      const modes = yield* NetworkModes
      const gasOf = yield* gasReader
      const limits = yield* PayoutLimits

      const describe = (payout: Payout) => `${payout.kind}${payout.leg === 0 ? "" : ` ${payout.leg}`} of ${payout.paymentId}`
      const transferOf = (payout: Payout): PayoutTransfer => ({
        asset: payout.asset,
        recipient: payout.recipient,
        value: payout.value
      })

      const writes = makePayoutWrites({ payments, refunds, payouts: repo, ids })

      // The payout's next version from `patch`, stored with what it implies; `false` on a lost race.
      const write = (payout: Payout, patch: Partial<Payout>, gas?: GasPaid) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          return yield* writes.write(payout, new Payout({ ...payout, ...patch, version: payout.version + 1, updatedAt: Math.max(millis, payout.updatedAt) }), gas)
        })

      // Applies `patch` to the pending payout, reloading after a lost race; `false` once it is no longer pending.
      const change = (key: PayoutKey, first: Payout, patch: (payout: Payout) => Partial<Payout>, gas?: GasPaid) =>
        Effect.gen(function*() {
          let current = first
          for (let race = 1; ; race++) {
            if (yield* write(current, patch(current), gas)) return true
            const latest = yield* repo.find(key)
            if (Option.isNone(latest) || latest.value.status !== "pending") return false
            if (race >= maxRaces) return yield* Effect.die(new Error(`payout ${describe(first)} kept changing under us`))
            current = latest.value
          }
        })

      const finish = (
        key: PayoutKey,
        payout: Payout,
        status: Exclude<PayoutStatus, "pending">,
        lastError: string | null,
        attempts = payout.attempts,
        gas?: GasPaid
      ) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const done = yield* change(key, payout, (p) => ({
            status,
            attempts,
            lastError: lastError ?? p.lastError,
            completedAt: status === "completed" ? millis : null
          }), gas)
          if (done) {
            yield* status === "completed"
              ? Effect.logInfo(`payout: ${describe(payout)} completed (${payout.transfer?.txHash})`)
              : Effect.logWarning(`payout: ${describe(payout)} failed: ${lastError}`)
          }
          return "final" as const
        })

      // An attempt moved nothing: retry with a new transfer, or fail after the last attempt.
      const attemptFailed = (key: PayoutKey, payout: Payout, reason: string, gas?: GasPaid) =>
        Effect.gen(function*() {
          const attempts = payout.attempts + 1
          if (attempts >= maxAttempts) {
            return yield* finish(key, payout, "failed", `${reason} (attempt ${attempts} of ${maxAttempts})`, attempts, gas)
          }
          yield* Effect.logWarning(`payout: ${describe(payout)} attempt ${attempts} of ${maxAttempts} failed: ${reason}; retrying later`)
          yield* change(key, payout, () => ({ transfer: null, attempts, lastError: reason }), gas)
          return "retry" as const
        })

      // Holds a payout over a limit for an owner's approval; the queue skips it from then on.
      const hold = (key: PayoutKey, payout: Payout, reason: string) =>
        Effect.gen(function*() {
          if (yield* change(key, payout, () => ({ approvalRequired: reason }))) {
            yield* Effect.logWarning(`payout: ${describe(payout)} waits for an owner's approval: ${reason}`)
            yield* Metric.update(payoutsHeld(payout.asset, payout.kind), 1)
          }
          return "final" as const
        })

      // Signs, records (within the limits, checked again with the record), then broadcasts a new transfer.
      const sendNew = (key: PayoutKey, payout: Payout) => {
        let over: string | undefined
        const record = (signed: SignedTransfer) =>
          Effect.map(limits.admit(payout, write(payout, { transfer: signed })), (admitted) => {
            if (typeof admitted === "boolean") return admitted
            over = admitted
            return false
          })
        return chain.send(transferOf(payout), record).pipe(
          Effect.flatMap(Option.match({
            // Another worker (or a refund withdrawing a settlement) changed the payout first, or a payout
            // recorded meanwhile brought it over a limit: nothing was sent.
            onNone: () => over === undefined ? Effect.succeed("pending" as const) : hold(key, payout, over),
            onSome: (signed) => Effect.as(Effect.logInfo(`payout: ${describe(payout)} sent ${signed.txHash}`), "pending" as const)
          })),
          Effect.catchTags({
            PayoutReverted: (error) => attemptFailed(key, payout, `the transfer would revert: ${error.message}`),
            ChainUnavailable: (error) =>
              Effect.as(Effect.logWarning(`payout: ${describe(payout)} waits: ${error.message}`), "unknown" as const)
          })
        )
      }

      // Follows a recorded transfer.
      const follow = (key: PayoutKey, payout: Payout, signed: SignedTransfer) =>
        Effect.gen(function*() {
          const outcome = yield* chain.observe(transferOf(payout), signed)
          // A mined transfer cost gas, whatever it did: recorded with the change that observes it.
          const gas = yield* Effect.result(gasIfMined(gasOf, outcome, payout.asset, signed.txHash))
          if (gas._tag === "Failure") return "unknown" as const
          const paid = gas.success
          switch (outcome) {
            case "succeeded":
              return yield* finish(key, payout, "completed", null, payout.attempts, paid)
            case "failed":
              return yield* finish(key, payout, "failed", `transaction ${signed.txHash} was included without paying ${payout.recipient}`, payout.attempts, paid)
            case "reverted":
              return yield* attemptFailed(key, payout, `transaction ${signed.txHash} reverted`, paid)
            case "dropped":
              // Its nonce went to another transaction: it can never be included, so a new one is safe.
              yield* Effect.logWarning(`payout: ${describe(payout)}: ${signed.txHash} was dropped; sending a new transfer`)
              yield* change(key, payout, () => ({ transfer: null, lastError: `transaction ${signed.txHash} was dropped` }))
              return "pending" as const
            case "pending":
              // Perhaps never broadcast (a crash or an outage right after recording): the same bytes again.
              yield* chain.resend(payout.asset, signed).pipe(
                Effect.catchTag("ChainUnavailable", (error) =>
                  Effect.logWarning(`payout: ${describe(payout)}: broadcasting ${signed.txHash} again failed: ${error.message}`))
              )
              return "pending" as const
            case "unknown":
              return "unknown" as const
          }
        })

      // Why a payout must never be sent: its network is of the other mode than its payment's.
      const offMode = Effect.fnUntraced(function*(payout: Payout) {
        const network = assetMode(modes, payout.asset)
        const payment = yield* payments.findById(payout.paymentId)
        if (network === undefined || Option.isNone(payment) || network === payment.value.mode) return undefined
        return offNetwork(payment.value.mode, `${payout.asset}`)
      })

      const advance = Effect.fn("PayoutExecutions.advance")(function*(key: PayoutKey) {
        const found = yield* repo.find(key)
        if (Option.isNone(found) || found.value.status !== "pending" || awaitsApproval(found.value)) return "final" as const
        const payout = found.value
        if (payout.transfer !== null) return yield* follow(key, payout, payout.transfer)
        const refused = yield* offMode(payout)
        if (refused !== undefined) return yield* finish(key, payout, "failed", refused)
        const over = payout.approvedAt === null ? yield* limits.exceeded(payout) : undefined
        return yield* over === undefined ? sendNew(key, payout) : hold(key, payout, over)
      })

      return PayoutExecutions.of({ advance })
    })
  )
}
