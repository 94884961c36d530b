import { domainErrors } from "@paygate/domain"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { contractErrorCode, errorCodes, ErrorResponse, isContractError, statusOf } from "../../src/api/ErrorCodes.ts"
import { httpErrors } from "../../src/api/HttpErrors.ts"

// The exact list of the specification's "Errors" and the contract's status per code (the test's oracle).
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

describe("error codes on the wire", () => {
  it("are exactly the 35 codes of the specification", () => {
    expect(specCodes).toHaveLength(35)
    expect([...errorCodes].sort()).toEqual([...specCodes].sort())
  })

  it("answer with the contract's HTTP status", () => {
    for (const [status, codes] of Object.entries(contractStatuses)) {
      for (const code of codes.split(" ")) expect(statusOf(code as never), code).toBe(Number(status))
    }
  })

  it("the domain's and the HTTP API's error classes cover every code exactly once", () => {
    const codes = [...domainErrors, ...httpErrors].map((ErrorClass) => {
      const error = new ErrorClass({ message: "m" })
      expect(isContractError(error)).toBe(true)
      return contractErrorCode(error)
    })
    expect([...codes].sort()).toEqual([...errorCodes].sort())
  })

  it("render as exactly {code, message}", () => {
    const body = Schema.encodeSync(ErrorResponse)(new ErrorResponse({ code: "payment_not_found", message: "No payment pay_1." }))
    expect(JSON.stringify(body)).toBe('{"code":"payment_not_found","message":"No payment pay_1."}')
    expect(isContractError(new Error("x"))).toBe(false)
    expect(isContractError({ _tag: "SomethingElse" })).toBe(false)
  })
})
