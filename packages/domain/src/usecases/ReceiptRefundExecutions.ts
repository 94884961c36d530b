import { Clock, Context, Effect, Layer, Option } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { ReceiptId } from "../ids/Ids.ts"
import type { PayoutStatus, SignedTransfer } from "../payout/Payout.ts"
import { gasIfMined, gasReader } from "../ports/GasMeter.ts"
import { Payouts, type PayoutTransfer } from "../ports/Payouts.ts"
import { ReceiptStore } from "../ports/ReceiptStore.ts"
import { type Receipt, ReceiptRefund } from "../receipt/Receipt.ts"
import { PayoutPolicy, type PayoutStep } from "./PayoutExecutions.ts"

/**
 * The worker's side of receipt refunds (see `ReceiptRefunds`): sends a pending refund once from the
 * collection address (the signed transfer is recorded before its broadcast; a new one only after the
 * chain proved the last one moved nothing: reverted or dropped), then follows it until the chain
 * decides: `completed`, or `failed` after `PayoutPolicy.maxAttempts` attempts, a transfer included
 * without paying the sender, or the receipt reversed by a reorganisation before anything was sent.
 * A mined transfer's gas is recorded with the change that observes it.
 */
export class ReceiptRefundExecutions extends Context.Service<ReceiptRefundExecutions, {
  readonly advance: (id: ReceiptId) => Effect.Effect<PayoutStep>
}>()("@paygate/domain/ReceiptRefundExecutions") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    ReceiptRefundExecutions,
    Effect.gen(function*() {
      const store = yield* ReceiptStore
      const chain = yield* Payouts
      const { maxAttempts } = yield* PayoutPolicy
      const gasOf = yield* gasReader

      const transferOf = (receipt: Receipt, refund: ReceiptRefund): PayoutTransfer => ({
        asset: receipt.asset,
        recipient: receipt.from,
        value: refund.value
      })

      // The refund's next version; `false` when another worker changed it first.
      const write = (receipt: Receipt, refund: ReceiptRefund, patch: Partial<ReceiptRefund>, gas?: GasPaid) =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const next = new ReceiptRefund({ ...refund, ...patch, version: refund.version + 1, updatedAt: Math.max(millis, refund.updatedAt) })
          return yield* store.saveRefund(receipt.id, next, gas)
        })

      const finish = (
        receipt: Receipt,
        refund: ReceiptRefund,
        status: Exclude<PayoutStatus, "pending">,
        why: string,
        attempts = refund.attempts,
        gas?: GasPaid
      ) =>
        Effect.gen(function*() {
          if (yield* write(receipt, refund, { status, attempts }, gas)) {
            yield* status === "completed"
              ? Effect.logInfo(`receipt refund: ${receipt.id} completed (${refund.transfer?.txHash})`)
              : Effect.logWarning(`receipt refund: ${receipt.id} failed: ${why}`)
          }
          return "final" as const
        })

      const attemptFailed = (receipt: Receipt, refund: ReceiptRefund, reason: string, gas?: GasPaid) =>
        Effect.gen(function*() {
          const attempts = refund.attempts + 1
          if (attempts >= maxAttempts) return yield* finish(receipt, refund, "failed", `${reason} (attempt ${attempts} of ${maxAttempts})`, attempts, gas)
          yield* Effect.logWarning(`receipt refund: ${receipt.id} attempt ${attempts} of ${maxAttempts} failed: ${reason}; retrying later`)
          yield* write(receipt, refund, { transfer: null, attempts }, gas)
          return "retry" as const
        })

      const sendNew = (receipt: Receipt, refund: ReceiptRefund) =>
        chain.send(transferOf(receipt, refund), (signed: SignedTransfer) => write(receipt, refund, { transfer: signed })).pipe(
          Effect.as("pending" as const),
          Effect.catchTags({
            PayoutReverted: (error) => attemptFailed(receipt, refund, `the transfer would revert: ${error.message}`),
            ChainUnavailable: (error) => Effect.as(Effect.logWarning(`receipt refund: ${receipt.id} waits: ${error.message}`), "unknown" as const)
          })
        )

      const follow = (receipt: Receipt, refund: ReceiptRefund, signed: SignedTransfer) =>
        Effect.gen(function*() {
          const outcome = yield* chain.observe(transferOf(receipt, refund), signed)
          // A mined transfer cost gas, whatever it did: recorded with the change that observes it.
          const gas = yield* Effect.result(gasIfMined(gasOf, outcome, receipt.asset, signed.txHash))
          if (gas._tag === "Failure") return "unknown" as const
          const paid = gas.success
          switch (outcome) {
            case "succeeded":
              return yield* finish(receipt, refund, "completed", "", refund.attempts, paid)
            case "failed":
              return yield* finish(receipt, refund, "failed", `transaction ${signed.txHash} was included without paying ${receipt.from}`, refund.attempts, paid)
            case "reverted":
            case "dropped":
              return yield* attemptFailed(receipt, refund, `transaction ${signed.txHash} ${outcome === "reverted" ? "reverted" : "was dropped"}`, paid)
            case "pending":
              // Perhaps never broadcast (a crash right after recording): the same bytes again.
              yield* chain.resend(receipt.asset, signed).pipe(Effect.catchTag("ChainUnavailable", () => Effect.void))
              return "pending" as const
            case "unknown":
              return "unknown" as const
          }
        })

      const advance = Effect.fn("ReceiptRefunds.advance")(function*(id: ReceiptId) {
        const found = yield* store.find(id)
        const refund = Option.isSome(found) ? found.value.refund : null
        if (Option.isNone(found) || refund === null || refund.status !== "pending") return "final" as const
        // A reorganisation took the transfer away: a transfer already sent is followed to its end (it may
        // still be mined), but nothing new is sent for money that is no longer there.
        if (refund.transfer === null && found.value.reversedAt !== null) {
          return yield* finish(found.value, refund, "failed", "its transfer was removed from the chain by a reorganisation: nothing arrived to refund")
        }
        return yield* refund.transfer === null ? sendNew(found.value, refund) : follow(found.value, refund, refund.transfer)
      })

      return ReceiptRefundExecutions.of({ advance })
    })
  )
}
