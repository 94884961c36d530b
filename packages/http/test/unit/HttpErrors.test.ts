import { apiErrors, errorCode, errorCodes, isApiError, statusOf } from "@paygate/domain"
import { describe, expect, it } from "vitest"
import { httpErrors } from "../../src/api/HttpErrors.ts"

describe("contract errors", () => {
  it("the domain's and the HTTP API's error classes cover every code exactly once", () => {
    const codes = [...apiErrors, ...httpErrors].map((ErrorClass) => errorCode(new ErrorClass({ message: "m" })))
    expect([...codes].sort()).toEqual([...errorCodes].sort())
  })

  it("the HTTP API's errors are contract errors whose tag, code and HTTP status agree", () => {
    for (const ErrorClass of httpErrors) {
      const error = new ErrorClass({ message: "m" })
      expect(isApiError(error)).toBe(true)
      expect(ErrorClass.ast.annotations?.["httpApiStatus"], error._tag).toBe(statusOf(errorCode(error)))
    }
  })
})
