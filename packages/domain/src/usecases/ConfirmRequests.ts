import { Context, Effect, Layer, Option } from "effect"
import { keccak256 } from "../caip/Keccak256.ts"
import {
  InvalidParams,
  type InvalidState,
  ParamsValidation,
  type PaymentExpired,
  type PaymentNotFound,
  QuoteExpired,
  type SanctionedUser
} from "../errors/DomainErrors.ts"
import type { Confirmation } from "../gateway/Confirmation.ts"
import { type OptionClaims, OptionIds } from "../gateway/OptionId.ts"
import { EscrowTerms } from "../hold/Hold.ts"
import type { Payment } from "../payment/Payment.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { QuoteStore } from "../ports/QuoteStore.ts"
import type { PaymentProof } from "../ports/ChainGateway.ts"
import type { Amount } from "../money/Amount.ts"
import type { Access } from "./Access.ts"
import { PaymentCommitments } from "./PaymentCommitments.ts"
import { tokenAmount } from "./TokenAmount.ts"
import { traced } from "./Traced.ts"

/** An accepted (or repeated) confirm: the payment as it stands and the chosen option's amount. */
export interface ConfirmedPayment {
  readonly payment: Payment
  readonly optionAmount: Amount
}

const foreign = () => new InvalidParams({ message: "The option id is not one this service issued for this payment." })
const depositOption = () =>
  new InvalidParams({ message: "A deposit option is paid by a transfer to its address; there is nothing to confirm." })

const hex = (bytes: Uint8Array) => `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`

/**
 * Digest of what a confirm means, not how it was written: the option's decoded claims and the
 * wallet's answer as a number (hex digits in either case are the same signature or hash). A
 * repeat of a confirm that a wallet re-encoded has the same one.
 */
const fingerprintOf = (claims: OptionClaims, answer: string) =>
  hex(keccak256(new TextEncoder().encode(JSON.stringify([
    claims.paymentId,
    claims.account.toLowerCase(),
    claims.asset.toLowerCase(),
    claims.value,
    claims.expiresAt,
    claims.kind,
    claims.nonce.toLowerCase(),
    claims.quotedAt,
    answer.toLowerCase()
  ]))))

/** The most approve transactions a Permit2 option asks for: approve(0), then approve(amount). */
const maxApprovals = 2

/** What the wallet answered: the signature (pull) or transaction hash (push), after any approve transactions' hashes. */
interface WalletAnswer {
  readonly answer: string
  readonly approvals: ReadonlyArray<string>
}

const txHash = /^0x[0-9a-fA-F]{64}$/

/**
 * The wallet's answers to the option's actions, one `walletRpc` result with one value each, in order:
 * a signature (pull) or a transaction hash (push); for a Permit2 token, the hashes of the approve
 * transactions the option asked for come first (none when the allowance already sufficed).
 */
const walletAnswer = (confirmation: Confirmation, kind: OptionClaims["kind"], permit2: boolean): Effect.Effect<WalletAnswer, ParamsValidation> => {
  const what = kind === "pull" ? "the eth_signTypedData_v4 signature" : "the eth_sendTransaction transaction hash"
  const results = confirmation.results
  const most = permit2 ? maxApprovals + 1 : 1
  const shape = permit2
    ? `one walletRpc result per action, each with one value: the approve transaction hashes (if any), then ${what}`
    : `one walletRpc result with ${what}`
  if (results.length < 1 || results.length > most || results.some((result) => result.data.length !== 1)) {
    return Effect.fail(new ParamsValidation({ message: `results must hold ${shape}.` }))
  }
  const values = results.map((result) => result.data[0]!)
  const approvals = values.slice(0, -1)
  const answer = values.at(-1)!
  const bad = approvals.findIndex((hash) => !txHash.test(hash))
  if (bad >= 0) return Effect.fail(new ParamsValidation({ message: `results[${bad}].data[0] must be an approve transaction hash (0x and 64 hex digits).` }))
  const pattern = kind === "pull" ? /^0x[0-9a-fA-F]+$/ : txHash
  if (!pattern.test(answer)) {
    return Effect.fail(new ParamsValidation({ message: `results[${values.length - 1}].data[0] must be ${what} (0x hex).` }))
  }
  return Effect.succeed({ answer, approvals })
}

const superseded = () =>
  new QuoteExpired({ message: "A newer quote replaced this option's; fetch the options again and confirm the latest." })

/**
 * Which options can be confirmed: only the latest quote of its (payment, account, asset), and never
 * for fewer tokens than the latest quote of that asset for the payment under any account. Older
 * quotes (refreshed, or made for another account earlier) stay valid on their own terms until they
 * expire, so without this a buyer could collect quotes while the rate moves and confirm the
 * cheapest.
 */
const onOffer = (quotes: QuoteStore["Service"], claims: OptionClaims) =>
  Effect.gen(function*() {
    const latest = yield* quotes.latest(claims.paymentId, claims.account, claims.asset)
    if (Option.isNone(latest) || latest.value.claims.nonce !== claims.nonce) return yield* superseded()
    const newest = yield* quotes.newest(claims.paymentId, claims.asset)
    if (Option.isSome(newest) && BigInt(newest.value.claims.value) > BigInt(claims.value)) return yield* superseded()
  })

/**
 * `POST /v1/gateway/payment/{id}/confirm` (API rules §10): reads the option id (tamper-proof, issued
 * for this payment, else `invalid_params`), turns the wallet's results into the proof the option
 * asked for — pull: the EIP-3009 authorization of the quote (token, payer, amount, collection
 * address, `validBefore` = quote expiry or else payment expiry, the quote's nonce) signed by the
 * wallet; push: the transaction carrying the quote's reference — and hands it to
 * {@link PaymentCommitments}.
 */
export class ConfirmRequests extends Context.Service<ConfirmRequests, {
  readonly confirm: (
    access: Access,
    paymentId: string,
    confirmation: Confirmation,
    /** The confirming wallet's name (`Sdk-Name`), shown as the buyer's account provider. */
    walletName: string
  ) => Effect.Effect<
    ConfirmedPayment,
    | InvalidParams
    | ParamsValidation
    | PaymentNotFound
    | PaymentExpired
    | InvalidState
    | QuoteExpired
    | SanctionedUser
  >
}>()("@paygate/domain/ConfirmRequests") {
  /** Confirm requests over the services in context. */
  static readonly layer = Layer.effect(
    ConfirmRequests,
    Effect.gen(function*() {
      const ids = yield* OptionIds
      const catalog = yield* AssetCatalog
      const commitments = yield* PaymentCommitments
      const quotes = yield* QuoteStore

      const confirm = Effect.fnUntraced(function*(
        access: Access,
        paymentId: string,
        confirmation: Confirmation,
        walletName: string
      ) {
        const claims = yield* ids.read(confirmation.optionId)
        if (claims.paymentId !== paymentId) return yield* foreign()
        if (claims.kind === "deposit") return yield* depositOption()
        const asset = catalog.asset(claims.asset)
        if (asset === undefined || asset.kind !== claims.kind) {
          return yield* new ParamsValidation({ message: "This option is no longer offered; ask for options again." })
        }
        const { answer, approvals } = yield* walletAnswer(confirmation, claims.kind, asset.permit2 === true)
        const value = BigInt(claims.value)
        const proof = (payment: Payment): PaymentProof =>
          claims.kind === "pull"
            ? {
              _tag: "Authorization",
              account: claims.account,
              asset: claims.asset,
              to: claims.escrow === undefined ? asset.collectionAddress : asset.escrowAddress ?? "",
              value,
              validBefore: claims.expiresAt ?? payment.expiresAt,
              nonce: claims.nonce,
              signature: answer,
              approvals,
              escrow: claims.escrow === undefined ? undefined : new EscrowTerms(claims.escrow, { disableChecks: true })
            }
            : {
              _tag: "Transaction",
              account: claims.account,
              asset: claims.asset,
              to: asset.collectionAddress,
              value,
              reference: claims.nonce,
              txHash: answer.toLowerCase()
            }
        const confirmed = yield* commitments.confirm(access, paymentId, {
          option: { account: claims.account, asset: claims.asset, tokenAmount: value, quoteExpiresAt: claims.expiresAt },
          proof,
          fingerprint: fingerprintOf(claims, [...approvals, answer].join(",")),
          onOffer: onOffer(quotes, claims),
          collectedData: confirmation.collectedData,
          walletName
        })
        return { payment: confirmed, optionAmount: tokenAmount(asset, claims.value) }
      }, traced("ConfirmRequests.confirm"))

      return ConfirmRequests.of({ confirm })
    })
  )
}
