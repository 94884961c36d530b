import type { PaymentDraft, Payments } from "@paygate/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { claimedAnswer, jsonAnswer } from "./Idempotency.ts"

/** Header of a successful answer that carries what the caller should know, e.g. a redirect turned off. */
export const warningHeader = "paygate-warning"

/**
 * Stores a prepared payment with the request's answer (`status`, rendered `body`) in one write
 * when the request claimed an `Idempotency-Key`, and answers it, with the draft's warnings in
 * {@link warningHeader} (joined by " | "). A replay answers the stored body, without the header.
 */
export const createdAnswer = (payments: Payments["Service"], draft: PaymentDraft, status: number, body: string) =>
  Effect.gen(function*() {
    const { answer, stored } = yield* claimedAnswer(status, body)
    yield* payments.commit(draft, answer)
    stored()
    const response = jsonAnswer(status, body)
    return draft.warnings.length === 0 ? response : HttpServerResponse.setHeader(response, warningHeader, draft.warnings.join(" | "))
  })
