import { HttpServerResponse } from "effect/http"
import { jsonResponse } from "./Idempotency.ts"

/** Header of a successful response that carries what the caller should know, e.g. a redirect turned off. */
export const warningHeader = "paygate-warning"

/**
 * A created payment's response: its rendered body, with `warning` (the domain's `checkoutWarning`:
 * why its redirect was turned off) in {@link warningHeader}. A replay responds with the stored body,
 * without the header.
 */
export const createdResponse = (status: number, body: string, warning: string | undefined) => {
  const response = jsonResponse(status, body)
  return warning === undefined ? response : HttpServerResponse.setHeader(response, warningHeader, warning)
}
