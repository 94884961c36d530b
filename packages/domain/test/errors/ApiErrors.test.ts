import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { apiErrors, errorCode, isApiError, PaymentNotFound } from "../../src/errors/ApiErrors.ts"
import { errorCodes, statusOf } from "../../src/errors/ErrorCode.ts"
import { ErrorResponse } from "../../src/errors/ErrorResponse.ts"

// The exact list of service-spec.md "Errors", and API rules §1's status per code (the test's oracle).
const specCodes = `rate_limited invalid_params params_validation payment_not_found idempotency_conflict internal_error
invalid_api_key unauthorized forbidden invalid_state payment_expired quote_expired missing_api_key
missing_merchant_api_key missing_merchant_id header_not_ascii not_sandbox_api_key merchant_not_found merchant_exists
api_key_not_found partner_not_found customer_not_found wallet_not_found executor_not_found missing_app_id
missing_client_id invalid_app_id conflicting_auth_headers missing_auth_headers invalid_api_version
unknown_api_version api_version_downgrade sanctioned_user payment_not_succeeded already_refunded`.split(/\s+/)

const contractStatuses: Record<number, string> = {
  400: "invalid_params params_validation header_not_ascii conflicting_auth_headers missing_merchant_id invalid_api_version unknown_api_version api_version_downgrade",
  401: "missing_api_key missing_merchant_api_key missing_auth_headers missing_app_id missing_client_id invalid_api_key invalid_app_id unauthorized",
  403: "forbidden not_sandbox_api_key sanctioned_user",
  404: "payment_not_found merchant_not_found api_key_not_found partner_not_found customer_not_found wallet_not_found executor_not_found",
  409: "idempotency_conflict merchant_exists invalid_state payment_expired quote_expired payment_not_succeeded already_refunded",
  429: "rate_limited",
  500: "internal_error"
}

describe("error codes", () => {
  it("are exactly the 35 codes of the specification", () => {
    expect(specCodes).toHaveLength(35)
    expect([...errorCodes].sort()).toEqual([...specCodes].sort())
  })

  it("answer with API rules §1's HTTP status", () => {
    for (const [status, codes] of Object.entries(contractStatuses)) {
      for (const code of codes.split(" ")) expect(statusOf(code as never), code).toBe(Number(status))
    }
  })

  it("the domain's error classes have a code each, whose tag, code and HTTP status agree", () => {
    // The other 17 codes (headers, version, credentials, rate limit, internal error) are raised by the HTTP API only: @paygate/http.
    expect(apiErrors).toHaveLength(18)
    const seen = new Set<string>()
    for (const ErrorClass of apiErrors) {
      const error = new ErrorClass({ message: "m" })
      const code = errorCode(error)
      seen.add(code)
      expect(isApiError(error)).toBe(true)
      // HttpApi answers with the class's `httpApiStatus` annotation.
      expect(ErrorClass.ast.annotations?.["httpApiStatus"], code).toBe(statusOf(code))
    }
    expect(seen.size).toBe(18)
  })

  it("render on the wire as exactly {code, message}", () => {
    const error = new PaymentNotFound({ message: "No payment pay_1." })
    const body = Schema.encodeSync(ErrorResponse)(new ErrorResponse({ code: errorCode(error), message: error.message }))
    expect(JSON.stringify(body)).toBe('{"code":"payment_not_found","message":"No payment pay_1."}')
    expect(isApiError(new Error("x"))).toBe(false)
    expect(isApiError({ _tag: "SomethingElse" })).toBe(false)
  })
})
