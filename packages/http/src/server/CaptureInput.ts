import type { CreatePaymentInput } from "@paygate/domain"

/** The create request's capture fields, as the domain takes them (absent when the request names none). */
export const captureInput = (body: {
  readonly capture?: "automatic" | "manual"
  readonly captureWindowSeconds?: number
  readonly voidAtDeadline?: boolean
}): CreatePaymentInput["capture"] =>
  body.capture === undefined && body.captureWindowSeconds === undefined && body.voidAtDeadline === undefined
    ? undefined
    : { method: body.capture ?? "automatic", windowSeconds: body.captureWindowSeconds, voidAtDeadline: body.voidAtDeadline }
