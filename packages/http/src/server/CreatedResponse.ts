import type { PaymentDraft, Payments } from "@paygate/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { claimedResponse, jsonResponse } from "./Idempotency.ts"

/** Header of a successful response that carries what the caller should know, e.g. a redirect turned off. */
export const warningHeader = "paygate-warning"

/**
 * Stores a prepared payment with the request's response (`status`, rendered `body`) in one write
 * when the request claimed an `Idempotency-Key`, and responds with it, with the draft's warnings in
 * {@link warningHeader} (joined by " | "). A replay responds with the stored body, without the header.
 */
export const createdResponse = (payments: Payments["Service"], draft: PaymentDraft, status: number, body: string) =>
  Effect.gen(function*() {
    const { completion, stored } = yield* claimedResponse(status, body)
    yield* payments.commit(draft, completion)
    stored()
    const response = jsonResponse(status, body)
    return draft.warnings.length === 0 ? response : HttpServerResponse.setHeader(response, warningHeader, draft.warnings.join(" | "))
  })
