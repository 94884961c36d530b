import { Clock, Context, Effect, Layer, Option } from "effect"
import type { PaymentId } from "../ids/Ids.ts"
import { Commitment, Payment, type SignedAuthorization } from "../payment/Payment.ts"
import { ChainGateway } from "../ports/ChainGateway.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { Payments } from "./Payments.ts"
import { traced } from "./Traced.ts"

/**
 * Where one round of chain work left a payment: `final` (succeeded or failed, or no longer
 * processing), `pending` (on its way: check again soon) or `unknown` (the chain could not be
 * asked: check again later, never failed on that account).
 */
export type ExecutionStep = "final" | "pending" | "unknown"

/** The chain's view of a pull payment's signed authorization. */
const authorizationProof = (commitment: Commitment, authorization: SignedAuthorization) => ({
  _tag: "Authorization" as const,
  account: commitment.account,
  asset: commitment.asset,
  to: authorization.to,
  value: commitment.tokenAmount,
  validBefore: authorization.validBefore,
  nonce: authorization.nonce,
  signature: authorization.signature
})

/** How the executor treats transactions the chain dropped. */
export interface ExecutionPolicyShape {
  /**
   * How long a recorded transaction may be unknown to the node before its authorization is sent
   * again: well past the time a broadcast takes to reach every node of a provider.
   */
  readonly droppedResendAfterMs: number
}

/** The execution policy; by default a dropped transaction is replaced after 30 s. */
export const ExecutionPolicy = Context.Reference<ExecutionPolicyShape>("@paygate/domain/ExecutionPolicy", {
  defaultValue: () => ({ droppedResendAfterMs: 30_000 })
})

/**
 * The executor's use case (contract §6, `processing` → `succeeded | failed`): submits a pull
 * payment's signed authorization once (the transaction hash is recorded with a compare-and-set,
 * so of two workers one hash wins), then watches the transaction until the chain reports an
 * outcome with its required confirmations. A pull payment whose authorization expired before it
 * could be submitted fails. An unknown outcome (RPC down) leaves the payment `processing`. A
 * transaction the chain dropped is replaced by a new one carrying the same authorization.
 */
export class Executions extends Context.Service<Executions, {
  readonly advance: (id: PaymentId) => Effect.Effect<ExecutionStep>
}>()("@paygate/domain/Executions") {
  /** Executions over the ports in context. */
  static readonly layer = Layer.effect(
    Executions,
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const chain = yield* ChainGateway
      const payments = yield* Payments
      const { droppedResendAfterMs } = yield* ExecutionPolicy

      const settle = (id: PaymentId, outcome: "succeeded" | "failed", txHash: string | null) =>
        payments.settleOutcome(id, outcome, txHash).pipe(
          // Someone else settled it meanwhile: the same chain fact, nothing left to do.
          Effect.catchTag("InvalidState", () => Effect.void),
          Effect.orDie,
          Effect.as("final" as const)
        )

      // Records the hash unless another worker recorded one first; answers the hash to follow.
      const recordSubmission = (payment: Payment, txHash: string): Effect.Effect<string> =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const next = new Payment({
            ...payment,
            commitment: new Commitment({ ...payment.commitment!, txHash }),
            stateVersion: payment.stateVersion + 1,
            updatedAt: Math.max(millis, payment.updatedAt)
          })
          if (yield* Effect.orDie(repo.update(next, []))) return txHash
          const latest = yield* repo.findById(payment.id)
          const recorded = Option.flatMap(latest, (p) => Option.fromNullishOr(p.commitment?.txHash))
          // Not recorded by anyone (the payment moved on): ours is the one that was sent.
          return Option.getOrElse(recorded, () => txHash)
        })

      // Sends the authorization (unless the chain shows it used: then follows that transaction) and
      // records the hash; `expired` once it can no longer be used, `unknown` when the chain is down.
      const submit = (payment: Payment, authorization: SignedAuthorization) =>
        Effect.gen(function*() {
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (now >= authorization.validBefore) return "expired" as const
          const submitted = yield* chain.submit(authorizationProof(payment.commitment!, authorization)).pipe(
            Effect.map(Option.some),
            Effect.catchTag("ChainUnavailable", (error) =>
              Effect.as(Effect.logWarning(`executor: submitting ${payment.id} failed; retrying later`, error.message), Option.none()))
          )
          if (Option.isNone(submitted)) return "unknown" as const
          return yield* recordSubmission(payment, submitted.value)
        })

      const advance = Effect.fnUntraced(function*(id: PaymentId) {
        const found = yield* repo.findById(id)
        if (Option.isNone(found)) return "final" as const
        const payment = found.value
        const commitment = payment.commitment
        if (payment.status !== "processing" || commitment === null) return "final" as const
        let txHash = commitment.txHash
        if (txHash === null) {
          const authorization = commitment.authorization
          if (authorization === null) return yield* Effect.die(new Error(`payment ${id} has neither transaction nor authorization`))
          const submitted = yield* submit(payment, authorization)
          if (submitted === "expired") return yield* settle(id, "failed", null)
          if (submitted === "unknown") return submitted
          txHash = submitted
        }
        const outcome = yield* chain.observe(commitment.asset, txHash, commitment.recipient)
        if (outcome === "failed" && commitment.authorization !== null) return yield* reverted(payment, commitment.authorization, txHash)
        if (outcome === "succeeded" || outcome === "failed") return yield* settle(id, outcome, txHash)
        if (outcome === "dropped") return yield* dropped(payment, txHash)
        return outcome
      }, traced("Executions.advance"))

      // The recorded transaction is gone from the node: another transaction of the executor took its
      // nonce (two workers share the executor's account), or the node's pool evicted it. A pull
      // payment's authorization is sent again, in a new transaction, once the recorded one has had
      // `ExecutionPolicy.droppedResendAfterMs` to reach the node (one behind a load balancer may not see a fresh
      // broadcast at once). Sending it again is safe: an authorization pays once, so should the first
      // transaction still be included, the second reverts and the payment follows the first. A push
      // payment's transaction is the payer's to send: it is waited for.
      const dropped = (payment: Payment, txHash: string) =>
        Effect.gen(function*() {
          const authorization = payment.commitment!.authorization
          const now = yield* Clock.currentTimeMillis
          if (authorization === null || now - payment.updatedAt < droppedResendAfterMs) return "pending" as const
          yield* Effect.logWarning(`executor: ${txHash} of ${payment.id} is no longer known to the chain; sending its authorization again`)
          const submitted = yield* submit(payment, authorization)
          // Too late to send: it paid only if some transaction used it before it expired.
          if (submitted === "expired") return yield* reverted(payment, authorization, txHash)
          return submitted === "unknown" ? submitted : "pending" as const
        })

      // The recorded transaction failed (or was dropped, and its authorization expired). If another one
      // used the same authorization (two workers sent it before either was mined), the payment follows
      // that one: it is the one that paid.
      const reverted = (payment: Payment, authorization: SignedAuthorization, txHash: string) =>
        Effect.gen(function*() {
          const used = yield* chain.usedBy(authorizationProof(payment.commitment!, authorization)).pipe(
            Effect.map(Option.some),
            Effect.catchTag("ChainUnavailable", (error) =>
              Effect.as(Effect.logWarning(`executor: reading ${payment.id}'s authorization failed; retrying later`, error.message), Option.none()))
          )
          if (Option.isNone(used)) return "unknown" as const
          const other = Option.filter(used.value, (hash) => hash.toLowerCase() !== txHash.toLowerCase())
          if (Option.isNone(other)) return yield* settle(payment.id, "failed", txHash)
          yield* Effect.logWarning(`executor: ${txHash} of ${payment.id} reverted; ${other.value} used its authorization: following it`)
          yield* recordSubmission(payment, other.value)
          return "pending" as const
        })

      return Executions.of({ advance })
    })
  )
}
