import { describe, expect, it } from "vitest"
import { domainErrors, errorCode, isDomainError, PaymentNotFound } from "../../src/errors/DomainErrors.ts"
import { domainErrorCodes, tagOf } from "../../src/errors/ErrorCode.ts"

describe("domain errors", () => {
  it("one class per code the domain raises, whose tag is the code's PascalCase form", () => {
    expect(domainErrors).toHaveLength(domainErrorCodes.length)
    const codes = domainErrors.map((ErrorClass) => {
      const error = new ErrorClass({ message: "m" })
      expect(isDomainError(error)).toBe(true)
      expect(error._tag).toBe(tagOf(errorCode(error)))
      return errorCode(error)
    })
    expect([...codes].sort()).toEqual([...domainErrorCodes].sort())
  })

  it("carry a message and nothing of a transport (no HTTP status)", () => {
    const error = new PaymentNotFound({ message: "No payment pay_1." })
    expect(errorCode(error)).toBe("payment_not_found")
    expect(error.message).toBe("No payment pay_1.")
    for (const ErrorClass of domainErrors) expect(ErrorClass.ast.annotations?.["httpApiStatus"]).toBeUndefined()
    expect(isDomainError(new Error("x"))).toBe(false)
    expect(isDomainError({ _tag: "SomethingElse" })).toBe(false)
    expect(isDomainError({ _tag: "HeaderNotAscii" })).toBe(false)
  })
})
