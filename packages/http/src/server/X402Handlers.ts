import { type X402Caller, X402Facilitator, type X402Payment, type X402Request, type X402Settlement, type X402Verdict } from "@paygate/domain"
import { Context, Effect, Option, Schema } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { CurrentCaller, CurrentMerchantId } from "../api/Security.ts"
import * as ApiWire from "../api/wire/index.ts"
import * as HandlerGroup from "./HandlerGroup.ts"

const readEip3009 = Schema.decodeUnknownOption(ApiWire.X402Eip3009Payload)

/** The domain's view of a decoded `/verify` or `/settle` body: the `exact` EIP-3009 payload read out. */
export const x402Request = (body: typeof ApiWire.X402FacilitatorRequest.Type): X402Request => {
  const eip3009 = readEip3009(body.paymentPayload.payload)
  const payment: X402Payment = {
    x402Version: body.paymentPayload.x402Version,
    accepted: body.paymentPayload.accepted,
    authorization: Option.isSome(eip3009) ? eip3009.value.authorization : undefined,
    signature: Option.isSome(eip3009) ? eip3009.value.signature : undefined,
    resourceUrl: body.paymentPayload.resource?.url
  }
  return { x402Version: body.x402Version, payment, requirements: body.paymentRequirements }
}

// The wire leaves out what is unknown (the schemas' optional keys).
const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : { [key]: value } as Record<K, V>)

/** A verdict as `/verify` responds with it. */
export const verifyResponse = (verdict: X402Verdict): typeof ApiWire.X402VerifyResponse.Type =>
  verdict.isValid
    ? { isValid: true, payer: verdict.payer }
    : { isValid: false, invalidReason: verdict.invalidReason, invalidMessage: verdict.invalidMessage, ...optional("payer", verdict.payer) }

/** A settlement as `/settle` responds with it: the merchant payment that records it in `extra.paymentId`. */
export const settleResponse = (settlement: X402Settlement): typeof ApiWire.X402SettleResponse.Type => ({
  success: settlement.success,
  transaction: settlement.transaction,
  network: settlement.network,
  ...optional("errorReason", settlement.errorReason),
  ...optional("errorMessage", settlement.errorMessage),
  ...optional("payer", settlement.payer),
  ...optional("extra", settlement.paymentId === undefined ? undefined : { paymentId: settlement.paymentId })
})

const callerOf = (context: Context.Context<CurrentCaller | CurrentMerchantId>): X402Caller => {
  const caller = Context.get(context, CurrentCaller)
  return { partnerId: caller.partner.id, mode: caller.mode, merchantId: Context.get(context, CurrentMerchantId) }
}

/** The x402 facilitator routes over {@link X402Facilitator}. */
export const X402Handlers = HandlerGroup.group(
  PaygateApi,
  "x402",
  Effect.fn(function*(handlers) {
    const facilitator = yield* X402Facilitator
    const current = Effect.map(Effect.context<CurrentCaller | CurrentMerchantId>(), callerOf)
    return handlers
      .handle("supported", () =>
        Effect.flatMap(current, (caller) =>
          Effect.map(facilitator.supported(caller), (kinds) => ({ kinds, extensions: [], signers: {} }))))
      .handle("verify", ({ payload }) => Effect.flatMap(current, (caller) => Effect.map(facilitator.verify(caller, x402Request(payload)), verifyResponse)))
      .handle("settle", ({ payload }) => Effect.flatMap(current, (caller) => Effect.map(facilitator.settle(caller, x402Request(payload)), settleResponse)))
  })
)
