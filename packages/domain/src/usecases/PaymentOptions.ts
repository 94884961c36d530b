import { Clock, Context, Effect, Layer, Option } from "effect"
import { parseAccountId } from "../caip/AccountId.ts"
import {
  type InvalidParams,
  type InvalidState,
  ParamsValidation,
  type PaymentExpired,
  type PaymentNotFound,
  SanctionedUser
} from "../errors/DomainErrors.ts"
import { OptionIds } from "../gateway/OptionId.ts"
import type { Payment } from "../payment/Payment.ts"
import { AssetCatalog, type PayableAsset } from "../ports/AssetCatalog.ts"
import { NetworkModes } from "../ports/NetworkModes.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import { WalletActions } from "../ports/WalletActions.ts"
import type { PaymentOption } from "../gateway/PaymentOption.ts"
import type { Access } from "./Access.ts"
import { DataCollection } from "./DataCollection.ts"
import { makeEscrowTermsOf } from "./EscrowTermsOf.ts"
import { notWaiting } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"
import { makeQuoting } from "./Quoting.ts"
import { tokenAmount } from "./TokenAmount.ts"
import { traced } from "./Traced.ts"

/** API rules §7: at most 20 accounts per options request. */
export const maxAccounts = 20

/**
 * The gateway's options operation (API rules §10): one option per (account, accepted asset on that
 * account's chain) that can be priced, on the networks of the payment's mode only (`NetworkModes`). A quote is reused while it is valid, unless its option id
 * is listed in `refresh`; then it is quoted again (new id, new `expiresAt`). The options of an
 * account that still owes buyer data for the payment carry the form ({@link DataCollection}).
 */
export class PaymentOptions extends Context.Service<PaymentOptions, {
  readonly options: (
    access: Access,
    paymentId: string,
    accounts: ReadonlyArray<string>,
    refresh: ReadonlyArray<string>
  ) => Effect.Effect<
    { readonly payment: Payment; readonly options: ReadonlyArray<PaymentOption> },
    ParamsValidation | InvalidParams | PaymentNotFound | PaymentExpired | InvalidState | SanctionedUser
  >
}>()("@paygate/domain/PaymentOptions") {
  /** Options over the ports in context. */
  static readonly layer = Layer.effect(
    PaymentOptions,
    Effect.gen(function*() {
      const payments = yield* Payments
      const catalog = yield* AssetCatalog
      const modes = yield* NetworkModes
      const ids = yield* OptionIds
      const actions = yield* WalletActions
      const screening = yield* SanctionsScreening
      const dataCollection = yield* DataCollection
      const quoting = yield* makeQuoting
      const escrowTerms = yield* makeEscrowTermsOf

      const optionFor = Effect.fnUntraced(function*(
        payment: Payment,
        account: string,
        asset: PayableAsset,
        refresh: ReadonlySet<string>,
        now: number
      ) {
        const escrow = yield* escrowTerms(payment, asset)
        if (Option.isNone(escrow)) return Option.none()
        const chosen = yield* quoting.current(payment, account, asset, asset.kind, now, refresh, escrow.value)
        if (Option.isNone(chosen)) return Option.none()
        const { claims, optionId } = chosen.value
        const validBefore = claims.expiresAt ?? payment.expiresAt
        const option: PaymentOption = {
          id: optionId,
          account,
          amount: tokenAmount(asset, claims.value),
          etaS: asset.etaSeconds,
          actions: yield* actions.actionsFor(claims, optionId, validBefore),
          collectData: null,
          expiresAt: claims.expiresAt
        }
        return Option.some(option)
      })

      const options = Effect.fnUntraced(function*(
        access: Access,
        paymentId: string,
        accounts: ReadonlyArray<string>,
        refresh: ReadonlyArray<string>
      ) {
        if (accounts.length < 1 || accounts.length > maxAccounts) {
          return yield* new ParamsValidation({ message: `accounts must list 1 to ${maxAccounts} CAIP-10 accounts.` })
        }
        const parsed = yield* Effect.forEach(accounts, (account, i) => parseAccountId(account, `accounts[${i}]`))
        const refreshed = new Set(yield* Effect.forEach(refresh, (id) => Effect.map(ids.read(id), () => id)))
        const payment = yield* payments.find(access, paymentId)
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (payment.status !== "requires_action") return yield* notWaiting(payment, now)
        for (const { address, chainId } of parsed) {
          if (yield* screening.isSanctioned(`${chainId}:${address}`)) {
            return yield* new SanctionedUser({ message: "One of these accounts cannot make payments." })
          }
        }
        // Only the networks of the payment's mode: a test payment never sees a real network, nor the reverse.
        const found = yield* Effect.forEach(parsed, ({ address, chainId }) =>
          Effect.forEach(
            modes.modeOf(chainId) === payment.mode ? catalog.assetsOn(chainId) : [],
            (asset) => optionFor(payment, `${chainId}:${address}`, asset, refreshed, now)
          ))
        const forms = yield* dataCollection.pendingForms(payment, parsed.map(({ address, chainId }) => `${chainId}:${address}`))
        const options = found.flat().flatMap((o) => (Option.isSome(o) ? [o.value] : []))
        return { payment, options: options.map((o) => ({ ...o, collectData: forms.get(o.account) ?? null })) }
      }, traced("PaymentOptions.options"))

      return PaymentOptions.of({ options })
    })
  )
}
