import { Context, Effect, Layer, Option, Result } from "effect"
import type { CollectedData } from "../datacollection/CollectedData.ts"
import {
  InvalidState,
  ParamsValidation,
  type PaymentExpired,
  type PaymentNotFound,
  QuoteExpired,
  SanctionedUser
} from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { Commitment, type Payment, SignedAuthorization } from "../payment/Payment.ts"
import { statusAt } from "../payment/StatusMachine.ts"
import { ChainGateway, type PaymentProof } from "../ports/ChainGateway.ts"
import { assetMode, NetworkModes, offNetwork } from "../ports/NetworkModes.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import type { Access } from "./Access.ts"
import { DataCollection } from "./DataCollection.ts"
import { type Decision, makePaymentChanges, notWaiting, nowSeconds, withStatusNow } from "./PaymentChanges.ts"
import { traced } from "./Traced.ts"

/** A confirm: the option the buyer chose (already authenticated by the caller) and its proof. */
export interface ConfirmInput {
  readonly option: {
    readonly account: string
    readonly asset: string
    readonly tokenAmount: bigint
    /** Unix seconds; `null` for options that involve no rate. */
    readonly quoteExpiresAt: number | null
  }
  /**
   * The proof, given the payment as loaded: an authorization's `validBefore` is the quote's
   * expiry or else the payment's, which the caller need not read first.
   */
  readonly proof: (payment: Payment) => PaymentProof
  /** Digest of the decoded (option, wallet answer): repeats of an accepted confirm, however encoded, are idempotent. */
  readonly fingerprint: string
  /**
   * Whether the option is still on offer (the gateway's: its quote is the payment's current one),
   * checked once a confirm is known to be no repeat; none: it is.
   */
  readonly onOffer?: Effect.Effect<void, QuoteExpired>
  /** Buyer data sent along (API rules §10 data collection), if any. */
  readonly collectedData: CollectedData | null
  /** The confirming wallet's name, recorded as the buyer's account provider. */
  readonly walletName: string
}

/**
 * Whether `input` is the confirm the payment already committed to: the same option and results, or
 * the push transfer the chain watcher saw and recorded before the wallet's confirm came (same token,
 * payer and transaction): the wallet is answered as for a repeat, not refused.
 */
const sameCommitment = (commitment: Commitment, input: ConfirmInput, payment: Payment): boolean => {
  if (commitment.fingerprint === input.fingerprint) return true
  const proof = input.proof(payment)
  return proof._tag === "Transaction" && commitment.kind === "push" && commitment.txHash !== null &&
    commitment.txHash.toLowerCase() === proof.txHash.toLowerCase() && commitment.asset === input.option.asset &&
    commitment.account.toLowerCase() === input.option.account.toLowerCase()
}

/**
 * The commitment point of the gateway: a confirm moves a payment to `processing` once the quote,
 * the option's network (of the payment's mode: `NetworkModes`), the account and the proof check
 * out. Repeats of the accepted confirm are idempotent; any other confirm after it is
 * `invalid_state`; of two concurrent confirms exactly one wins.
 */
export class PaymentCommitments extends Context.Service<PaymentCommitments, {
  readonly confirm: (
    access: Access,
    id: string,
    input: ConfirmInput
  ) => Effect.Effect<
    Payment,
    PaymentNotFound | PaymentExpired | InvalidState | QuoteExpired | SanctionedUser | ParamsValidation
  >
}>()("@paygate/domain/PaymentCommitments") {
  /** Payment commitments over the ports in context. */
  static readonly layer = Layer.effect(
    PaymentCommitments,
    Effect.gen(function*() {
      const repo = yield* PaymentRepository
      const chain = yield* ChainGateway
      const screening = yield* SanctionsScreening
      const modes = yield* NetworkModes
      const dataCollection = yield* DataCollection
      const { change, load } = makePaymentChanges(repo, yield* IdGenerator)

      const confirm = Effect.fnUntraced(function*(access: Access, id: string, input: ConfirmInput) {
        const current = yield* load(access, id)
        const now = yield* nowSeconds
        // A repeat of the accepted confirm responds with the current state; any other confirm is refused.
        if (current.commitment !== null) {
          if (sameCommitment(current.commitment, input, current)) return withStatusNow(current, now)
          return yield* new InvalidState({ message: `Payment ${id} was already confirmed with another option.` })
        }
        if (statusAt(current, now) !== "requires_action") return yield* notWaiting(current, now)
        if (input.option.quoteExpiresAt !== null && now >= input.option.quoteExpiresAt) {
          return yield* new QuoteExpired({ message: "The option's quote has expired; fetch the options again." })
        }
        if (assetMode(modes, input.option.asset) !== current.mode) {
          return yield* new ParamsValidation({ message: offNetwork(current.mode, "This option") })
        }
        if (yield* screening.isSanctioned(input.option.account)) {
          return yield* new SanctionedUser({ message: "This account cannot make payments." })
        }
        yield* dataCollection.ensureProvided(current, input.option.account, input.collectedData)
        // Before the proof: verifying it may cost a chain call.
        if (input.onOffer !== undefined) yield* input.onOffer
        const proof = input.proof(current)
        const escrow = proof._tag === "Authorization" ? proof.escrow : undefined
        if ((current.hold === undefined) !== (escrow === undefined)) {
          return yield* new ParamsValidation({ message: "This option is not one for this payment's capture method; ask for options again." })
        }
        yield* chain.verify(proof)
        const commitment = new Commitment({
          kind: proof._tag === "Authorization" ? "pull" : "push",
          account: input.option.account,
          asset: input.option.asset,
          tokenAmount: input.option.tokenAmount,
          fingerprint: input.fingerprint,
          txHash: proof._tag === "Transaction" ? proof.txHash : null,
          authorization: proof._tag === "Authorization"
            ? new SignedAuthorization({
              to: proof.to,
              validBefore: proof.validBefore,
              nonce: proof.nonce.toLowerCase(),
              signature: proof.signature,
              ...(escrow === undefined ? {} : { escrow })
            })
            : null,
          reference: proof._tag === "Transaction" ? proof.reference : null,
          walletName: input.walletName,
          confirmedAt: now,
          // A held payment's transfer pays the escrow, not the collection address.
          ...(escrow === undefined ? {} : { recipient: `${input.option.asset.slice(0, input.option.asset.indexOf("/"))}:${proof.to}` })
        })
        return yield* change(access, id, (latest, at): Decision<PaymentExpired | InvalidState> => {
          if (latest.commitment !== null) {
            return sameCommitment(latest.commitment, input, latest)
              ? Result.succeed(Option.none())
              : Result.fail(new InvalidState({ message: `Payment ${id} was already confirmed with another option.` }))
          }
          if (statusAt(latest, at) !== "requires_action") return Result.fail(notWaiting(latest, at))
          return Result.succeed(Option.some({
            event: { _tag: proof._tag === "Authorization" ? "ConfirmAccepted" : "PushTransferSeen" },
            type: "payment.processing",
            patch: () => ({ commitment }),
            stage: { account: commitment.account, asset: commitment.asset, amount: commitment.tokenAmount.toString() }
          }))
        }, () =>
          new ParamsValidation({
            message: "This authorization or transaction already paid for another payment; it cannot be used again."
          }), current)
      }, traced("PaymentCommitments.confirm"))

      return PaymentCommitments.of({ confirm })
    })
  )
}
