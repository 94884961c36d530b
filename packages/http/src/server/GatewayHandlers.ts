import * as HandlerGroup from "./HandlerGroup.ts"
import {
  ConfirmRequests,
  DataCollection,
  DepositOptions,
  InvalidParams,
  isFinal,
  ParamsValidation,
  type Payment,
  Payments,
  pollInMs,
  walletStatus
} from "@paygate/domain"
import { Clock, Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { CurrentGatewayCaller } from "../api/Security.ts"
import * as GatewayOptions from "./GatewayOptions.ts"

/** API rules §7: a long poll waits at most 30 s. */
export const maxPollMillis = 30_000
const pollStepMillis = 200

const parseMaxPoll = (text: string | undefined) => {
  if (text === undefined) return Effect.succeed(0)
  if (!/^[0-9]{1,9}$/.test(text)) return Effect.fail(new InvalidParams({ message: "maxPollMs must be a whole number of milliseconds." }))
  const value = Number(text)
  return value <= maxPollMillis
    ? Effect.succeed(value)
    : Effect.fail(new ParamsValidation({ message: `maxPollMs must be at most ${maxPollMillis}.` }))
}

/** The account provider recorded for a confirm without `Sdk-Name`. */
const unnamedWallet = "Unknown wallet"

const statusBody = (payment: Payment) => {
  const status = walletStatus(payment.status)
  return { status, isFinal: isFinal(status), pollInMs: pollInMs(status) }
}

/** Gateway handlers: the caller's mode must match the payment's, else it does not exist for them. */
export const GatewayHandlers = HandlerGroup.group(
  PaygateApi,
  "gateway",
  Effect.fn(function*(handlers) {
    const payments = yield* Payments
    const confirmations = yield* ConfirmRequests
    const dataCollection = yield* DataCollection
    const deposits = yield* DepositOptions
    const gateway = yield* GatewayOptions.make
    const access = Effect.gen(function*() {
      const caller = yield* CurrentGatewayCaller
      return { mode: caller.mode }
    })

    return handlers
      .handle("payment", ({ params }) =>
        Effect.gen(function*() {
          return yield* gateway.paymentInfo(yield* payments.find(yield* access, params.id))
        }))
      .handle("status", ({ params, query }) =>
        Effect.gen(function*() {
          const waitMillis = yield* parseMaxPoll(query.maxPollMs)
          const who = yield* access
          const first = yield* payments.find(who, params.id)
          const deadline = (yield* Clock.currentTimeMillis) + waitMillis
          let current = first
          // Long poll: re-read until the status changes (expiry on read counts) or the time is up.
          while (current.status === first.status && !isFinal(walletStatus(current.status))) {
            const left = deadline - (yield* Clock.currentTimeMillis)
            if (left <= 0) break
            yield* Effect.sleep(Math.min(pollStepMillis, left))
            current = yield* payments.find(who, params.id)
          }
          return statusBody(current)
        }))
      .handle("cancel", ({ params }) =>
        Effect.gen(function*() {
          const payment = yield* payments.cancel(yield* access, params.id, "cancelled_by_user")
          return {
            paymentId: payment.id,
            status: "cancelled" as const,
            // A cancelled payment always carries both.
            cancelledAt: payment.cancelledAt!,
            cancelledReason: payment.cancelledReason!
          }
        }))
      .handle("options", ({ params, payload, query }) =>
        Effect.gen(function*() {
          const { version } = yield* CurrentGatewayCaller
          return yield* gateway.options(yield* access, version, params.id, query.includePaymentInfo, payload)
        }))
      .handle("fetch", ({ params, payload }) =>
        Effect.gen(function*() {
          return yield* gateway.fetch(yield* access, params.id, payload)
        }))
      .handle("confirm", ({ params, payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentGatewayCaller
          // The decoded body is the domain's Confirmation as it stands.
          const { optionAmount, payment } = yield* confirmations.confirm(
            { mode: caller.mode },
            params.id,
            payload,
            caller.sdk.name ?? unnamedWallet
          )
          // API rules §10: no info until a transaction id is known; txId is never null.
          const txId = payment.commitment?.txHash ?? null
          return { ...statusBody(payment), info: txId === null ? null : { txId, optionAmount } }
        }))
      .handle("deposit", ({ params }) =>
        Effect.gen(function*() {
          return { options: yield* deposits.deposit(yield* access, params.id) }
        }))
      .handle("collectData", ({ params, payload }) =>
        Effect.gen(function*() {
          yield* dataCollection.submit(yield* access, params.id, payload.account, payload.data)
          return { accepted: true as const }
        }))
  })
)
