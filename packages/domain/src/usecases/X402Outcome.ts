import { Clock, Duration, Effect, Option } from "effect"
import type { PaymentId } from "../ids/Ids.ts"
import type { PaymentRepository } from "../ports/PaymentRepository.ts"
import { X402Reason, type X402Settlement } from "../x402/X402Terms.ts"

const pollEvery = Duration.millis(200)

/**
 * The settle answer of an x402 payment: waits, until `deadline` (Unix ms), for the executor to
 * decide its transaction, then answers the outcome; a payment still on its way answers
 * `settlement_pending` with its transaction, or, when none could be sent yet (the chain is down),
 * says so: it stays recorded and is sent once the chain answers, and settling the same payload
 * again answers its outcome. Never a response that makes a client pay again.
 */
export const x402Outcome = (repo: PaymentRepository["Service"]) =>
  Effect.fnUntraced(function*(paymentId: string, network: string, deadline: number) {
    for (;;) {
      const found = yield* repo.findById(paymentId as PaymentId)
      const commitment = Option.isSome(found) ? found.value.commitment : null
      if (Option.isNone(found) || commitment === null) return yield* Effect.die(new Error(`x402 payment ${paymentId} has no commitment`))
      const answer = { payer: commitment.account.split(":")[2], transaction: commitment.txHash ?? "", network, paymentId }
      if (found.value.status === "succeeded") return { ...answer, success: true } satisfies X402Settlement
      if (found.value.status === "failed") {
        return {
          ...answer,
          success: false,
          errorReason: X402Reason.transactionFailed,
          errorMessage: `The transfer did not go through; payment ${paymentId} failed.`
        } satisfies X402Settlement
      }
      if ((yield* Clock.currentTimeMillis) >= deadline) {
        return (commitment.txHash !== null
          ? {
            ...answer,
            success: false,
            errorReason: X402Reason.pending,
            errorMessage: `The transaction is sent and not confirmed yet; settle the same payload again for its outcome (payment ${paymentId}).`
          }
          : {
            ...answer,
            success: false,
            errorReason: X402Reason.settleError,
            errorMessage:
              `The chain could not take the transfer yet (it may be unreachable); it is recorded as payment ${paymentId} and sent as soon as the chain answers. Settle the same payload again for its outcome; the buyer must not pay again.`
          }) satisfies X402Settlement
      }
      yield* Effect.sleep(pollEvery)
    }
  })
