import { Clock, Context, Effect, Layer, Option } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { PaymentId } from "../ids/Ids.ts"
import { Commitment, Payment, type SignedAuthorization } from "../payment/Payment.ts"
import { ChainGateway } from "../ports/ChainGateway.ts"
import { gasReader } from "../ports/GasMeter.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { Payments } from "./Payments.ts"
import { traced } from "./Traced.ts"

/**
 * Where one round of chain work left a payment: `final` (succeeded or failed, or no longer
 * processing), `pending` (on its way: check again soon) or `unknown` (the chain could not be
 * asked, or the authorization cannot be sent yet: check again later, never failed on that account).
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
  signature: authorization.signature,
  escrow: authorization.escrow
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
 * The executor's use case (`processing` → `succeeded | failed`): submits a pull
 * payment's signed authorization (the transaction hash is recorded with a compare-and-set, so of
 * two workers one hash wins), then watches the transaction until the chain reports an outcome with
 * its required confirmations. An unknown outcome (RPC down) leaves the payment `processing`. A
 * transaction the chain dropped is replaced by a new one carrying the same authorization.
 *
 * A pull payment fails only when its authorization can no longer move the buyer's money: the chain
 * is past its `validBefore` and nothing used it. While it is still valid, a reverted transaction or
 * one the adapter refused to send (it would revert now) leaves the payment `processing`, and it is
 * sent again; a transaction anyone else sent with it pays the payment.
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
      const gasOf = yield* gasReader

      // With the gas the executor paid for the transaction (a pull payment's: a push payment's is the payer's).
      const settle = (payment: Payment, outcome: "succeeded" | "failed", txHash: string | null) =>
        Effect.gen(function*() {
          const commitment = payment.commitment!
          const gas = txHash === null || commitment.authorization === null ? undefined : yield* gasOf(commitment.asset, txHash)
          yield* payments.settleOutcome(payment.id, outcome, txHash, gas).pipe(
            // Someone else settled it meanwhile: the same chain fact, nothing left to do.
            Effect.catchTag("InvalidState", () => Effect.void),
            Effect.orDie
          )
          return "final" as const
        }).pipe(
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.as(Effect.logWarning(`executor: reading the gas of ${payment.id} failed; retrying later`, error.message), "unknown" as const))
        )

      // Records the hash unless another worker recorded one first, with the gas of the transaction it
      // replaces (one of ours mined reverted); answers the hash to follow.
      const recordSubmission = (payment: Payment, txHash: string, replaced: GasPaid | undefined): Effect.Effect<string> =>
        Effect.gen(function*() {
          const millis = yield* Clock.currentTimeMillis
          const next = new Payment({
            ...payment,
            commitment: new Commitment({ ...payment.commitment!, txHash }),
            stateVersion: payment.stateVersion + 1,
            updatedAt: Math.max(millis, payment.updatedAt)
          })
          if (yield* Effect.orDie(repo.update(next, [], replaced))) return txHash
          const latest = yield* repo.findById(payment.id)
          const recorded = Option.flatMap(latest, (p) => Option.fromNullishOr(p.commitment?.txHash))
          // Not recorded by anyone (the payment moved on): ours is the one that was sent.
          return Option.getOrElse(recorded, () => txHash)
        })

      // Sends the authorization (unless the chain shows it used: then follows that transaction) and
      // records the hash; `refused` when the adapter would not send it (it would revert, or the
      // executor's gas may not be spent on it now), `unknown` when the chain is down.
      const send = (payment: Payment, authorization: SignedAuthorization, replaced: GasPaid | undefined) =>
        chain.submit(authorizationProof(payment.commitment!, authorization)).pipe(
          Effect.flatMap((txHash) => recordSubmission(payment, txHash, replaced)),
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.as(Effect.logWarning(`executor: submitting ${payment.id} failed; retrying later`, error.message), "unknown" as const)),
          Effect.catchTag("SubmissionRefused", (error) =>
            Effect.as(Effect.logInfo(`executor: ${payment.id} not sent; trying again while its authorization is valid`, error.message), "refused" as const))
        )

      // No transaction of ours carries the authorization (none sent yet, or `previous` reverted or was
      // dropped). A failed payment must leave nothing behind that could still move the buyer's money,
      // and the executor cannot cancel an authorization (only its signer can): so the payment follows
      // any transaction that used it, and fails only once the chain is past `validBefore` with it
      // unused. Until then it is `live`: the payment stays `processing` and it is sent again. A
      // `dropped` previous transaction that used it after all was mined late: it is followed again.
      const resolve = (
        payment: Payment,
        authorization: SignedAuthorization,
        previous: string | null,
        dropped: boolean,
        replaced: GasPaid | undefined
      ) =>
        Effect.gen(function*() {
          const proof = authorizationProof(payment.commitment!, authorization)
          // Expiry first: an authorization unused once the chain is past its validBefore stays unused.
          const expired = yield* chain.expiredOnChain(proof)
          const used = yield* chain.usedBy(proof)
          const ours = Option.isSome(used) && previous !== null && used.value.toLowerCase() === previous.toLowerCase()
          if (ours && dropped) {
            yield* Effect.logWarning(`executor: ${previous} of ${payment.id}, seen dropped, used its authorization after all: following it`)
            return "pending" as const
          }
          const other = Option.filter(used, (hash) => previous === null || hash.toLowerCase() !== previous.toLowerCase())
          if (Option.isSome(other)) {
            yield* Effect.logWarning(`executor: ${other.value} used the authorization of ${payment.id}: following it`)
            yield* recordSubmission(payment, other.value, replaced)
            return "pending" as const
          }
          if (expired || Option.isSome(used)) return yield* settle(payment, "failed", previous)
          return "live" as const
        }).pipe(
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.as(Effect.logWarning(`executor: reading ${payment.id}'s authorization failed; retrying later`, error.message), "unknown" as const))
        )

      // Moves a pull payment on whose authorization no transaction of ours carries: sends it while it
      // can still pay, else settles it as the chain decides (see `resolve`). Once our clock is past
      // validBefore, or after a transaction of ours failed, the chain is read before anything is sent.
      // A `previous` transaction of ours that was mined (reverted) cost gas though the payment moves
      // on from it: its gas is recorded with the change that replaces its hash.
      const proceed = (payment: Payment, authorization: SignedAuthorization, previous: string | null, dropped = false) =>
        Effect.gen(function*() {
          const replaced = previous === null ? undefined : yield* gasOf(payment.commitment!.asset, previous)
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (previous !== null || now >= authorization.validBefore) {
            const state = yield* resolve(payment, authorization, previous, dropped, replaced)
            if (state !== "live") return state
          }
          const sent = yield* send(payment, authorization, replaced)
          if (sent !== "refused") return sent === "unknown" ? sent : "pending" as const
          const state = yield* resolve(payment, authorization, previous, dropped, replaced)
          // Live but not sendable now (e.g. the buyer is short of funds): checked again later.
          return state === "live" ? "unknown" as const : state
        }).pipe(
          Effect.catchTag("ChainUnavailable", (error) =>
            Effect.as(Effect.logWarning(`executor: reading the gas of ${previous} of ${payment.id} failed; retrying later`, error.message), "unknown" as const))
        )

      const advance: (id: PaymentId) => Effect.Effect<ExecutionStep> = Effect.fnUntraced(function*(id: PaymentId) {
        const found = yield* repo.findById(id)
        if (Option.isNone(found)) return "final" as const
        const payment = found.value
        const commitment = payment.commitment
        if (payment.status !== "processing" || commitment === null) return "final" as const
        const txHash = commitment.txHash
        if (txHash === null) {
          const authorization = commitment.authorization
          if (authorization === null) return yield* Effect.die(new Error(`payment ${id} has neither transaction nor authorization`))
          const step = yield* proceed(payment, authorization, null)
          if (step !== "pending") return step
          // Sent (or following another's transaction): watched at once.
          return yield* advance(id)
        }
        const outcome = yield* chain.observe(commitment.asset, txHash, commitment.recipient)
        if (outcome === "failed" && commitment.authorization !== null) return yield* proceed(payment, commitment.authorization, txHash)
        if (outcome === "succeeded" || outcome === "failed") return yield* settle(payment, outcome, txHash)
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
          return yield* proceed(payment, authorization, txHash, true)
        })

      return Executions.of({ advance })
    })
  )
}
