/**
 * The bodies of the gateway's options and fetch operations (API rules §10), for `GatewayHandlers`.
 *
 * - options: `includePaymentInfo` is absent, `true` or `false` (anything else `invalid_params`);
 *   the response is `{collectData: null, info, options}` with `info` the payment's `GET` body only
 *   when asked for. Buyer data forms travel per option (each names its account in its `url`), so
 *   the payment-level `collectData` stays null; from `2026-02-19.preview` their deprecated
 *   `fields` are sent empty.
 * - fetch: the option id must be one this service issued for this payment (`invalid_params`
 *   otherwise); the payment must still wait for the buyer and the quote be valid. With the `data`
 *   of a push option's `build` action, the response is the option's `eth_sendTransaction`. With an
 *   empty `data`, the response is the option's actions ready for the wallet (a pull option's
 *   `eth_signTypedData_v4`, a push option's `eth_sendTransaction`): that is how the
 *   `@walletconnect/pay` SDK asks for the actions of an option it did not keep from `/options`
 *   (a new client, or options of another payment asked for since). Any other `data` is `invalid_params`.
 *
 * @module
 */
import {
  type Access,
  type ApiVersion,
  AssetCatalog,
  fiatAmount,
  hasChange,
  InvalidParams,
  InvalidState,
  MerchantRepository,
  OptionIds,
  type Payment,
  PaymentExpired,
  PaymentOptions,
  Payments,
  QuoteExpired,
  WalletActions,
  walletStatus
} from "@paygate/domain"
import { Clock, Effect, Option, Result } from "effect"
import * as ApiWire from "../api/wire/index.ts"

const parseIncludeInfo = (text: string | undefined) => {
  if (text === undefined || text === "false") return Effect.succeed(false)
  if (text === "true") return Effect.succeed(true)
  return Effect.fail(new InvalidParams({ message: "includePaymentInfo must be true or false." }))
}

/** An option as `version` sends it: from `2026-02-19.preview`, `collectData.fields` is empty (API rules §3). */
export const optionForVersion = (version: ApiVersion) => (option: ApiWire.PaymentOption): ApiWire.PaymentOption =>
  option.collectData !== null && hasChange(version, "omitCollectDataFields")
    ? { ...option, collectData: { ...option.collectData, fields: [] } }
    : option

const notThisOption = (message: string) => new InvalidParams({ message })

/** The operations over the services in context (read once, when the handlers are built). */
export const make = Effect.gen(function*() {
  const merchants = yield* MerchantRepository
  const payments = yield* Payments
  const paymentOptions = yield* PaymentOptions
  const optionIds = yield* OptionIds
  const catalog = yield* AssetCatalog
  const walletActions = yield* WalletActions

  /** The `GET /v1/gateway/payment/{id}` body of `payment`. */
  const paymentInfo = Effect.fnUntraced(function*(payment: Payment) {
    const merchant = yield* merchants.findById(payment.partnerId, payment.mode, payment.merchantId)
    return {
      status: walletStatus(payment.status),
      amount: fiatAmount(payment.currency, payment.value),
      expiresAt: payment.expiresAt,
      merchant: {
        name: Option.match(merchant, { onNone: () => "", onSome: (m) => m.name }),
        iconUrl: Option.match(merchant, { onNone: () => null, onSome: (m) => m.iconUrl })
      },
      // Who pays is known once a confirm names the account and its wallet.
      buyer: payment.commitment === null
        ? null
        : { accountCaip10: payment.commitment.account, accountProviderName: payment.commitment.walletName, accountProviderIcon: null }
    }
  })

  /** `POST /v1/gateway/payment/{id}/options`. */
  const options = Effect.fnUntraced(function*(
    access: Access,
    version: ApiVersion,
    paymentId: string,
    includePaymentInfo: string | undefined,
    body: ApiWire.GetPaymentOptionsRequest
  ) {
    const withInfo = yield* parseIncludeInfo(includePaymentInfo)
    const found = yield* paymentOptions.options(access, paymentId, body.accounts, body.refresh ?? [])
    return {
      collectData: null,
      info: withInfo ? yield* paymentInfo(found.payment) : null,
      options: found.options.map(optionForVersion(version))
    }
  })

  /** `POST /v1/gateway/payment/{id}/fetch`. */
  const fetch = Effect.fnUntraced(function*(access: Access, paymentId: string, body: ApiWire.FetchRequest) {
    const claims = yield* optionIds.read(body.optionId)
    const payment = yield* payments.find(access, paymentId)
    if (claims.paymentId !== payment.id) {
      return yield* notThisOption("The option id is not one this service issued for this payment.")
    }
    if (payment.status === "expired") return yield* new PaymentExpired({ message: "The payment has expired." })
    if (payment.status !== "requires_action") {
      return yield* new InvalidState({ message: `The payment is ${payment.status}; it no longer waits for the buyer.` })
    }
    if (claims.kind === "deposit") return yield* notThisOption("A deposit option is paid by a transfer to its address; there is nothing to fetch.")
    // An empty data asks for the option's own actions (what a wallet SDK does for an option it has not kept).
    const wholeOption = body.data === ""
    if (!wholeOption && claims.kind !== "push") return yield* notThisOption("This option has no build action to fetch.")
    if (!wholeOption && body.data !== walletActions.buildData(claims)) {
      return yield* notThisOption("data must be the data of the option's build action, or empty for the option's actions.")
    }
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    if (claims.expiresAt !== null && now >= claims.expiresAt) {
      return yield* new QuoteExpired({ message: "The option's quote has expired; ask for options again." })
    }
    if (claims.kind === "pull") {
      if (catalog.asset(claims.asset) === undefined) {
        return yield* notThisOption("This option is no longer offered; ask for options again.")
      }
      // The same typed data as the options response (validBefore = quote expiry, else payment expiry).
      return { actions: yield* walletActions.actionsFor(claims, body.optionId, claims.expiresAt ?? payment.expiresAt) }
    }
    const actions = walletActions.pushTransfer(claims)
    if (Result.isFailure(actions)) return yield* notThisOption("This option is no longer offered; ask for options again.")
    return { actions: actions.success }
  })

  return { paymentInfo, options, fetch }
})
