import { DepositOptions, type Payment } from "@paygate/domain"
import { Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { qrSvg } from "./QrSvg.ts"

const headers = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  // Opened on its own, the image may do nothing but be drawn.
  "content-security-policy": "default-src 'none'"
}

const notFound = () => HttpServerResponse.text("Not found", { status: 404, headers })

/**
 * `GET {checkout}/{paymentId}/deposit-qr.svg?asset=<CAIP-19>&value=<base units>`: the QR code of
 * the payment's deposit option in that token, encoding exactly the option's EIP-681 `uri` as the
 * deposit operation gives it (the server looks the option up: no caller text is ever encoded).
 * `value`, when given, must be the option's amount: a page showing an amount whose quote was
 * replaced gets a 404 rather than a code for another amount. 404 too when the payment no longer
 * waits or has no such option. Over the services in context.
 */
export const makeDepositQr = Effect.gen(function*() {
  const deposits = yield* DepositOptions
  return (payment: Option.Option<Payment>, query: URLSearchParams) =>
    Effect.gen(function*() {
      if (Option.isNone(payment)) return notFound()
      const options = yield* deposits.deposit({ mode: payment.value.mode }, payment.value.id).pipe(Effect.orElseSucceed(() => []))
      const value = query.get("value")
      const option = options.find((o) => o.asset === query.get("asset") && (value === null || o.amount.value === value))
      if (option === undefined) return notFound()
      return HttpServerResponse.text(yield* qrSvg(option.uri), { contentType: "image/svg+xml", headers })
    })
})
