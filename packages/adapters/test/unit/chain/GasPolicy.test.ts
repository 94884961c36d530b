import { describe, expect, it } from "vitest"
import { defaultGasPolicy, policyOf } from "../../../src/chain/GasPolicy.ts"

describe("gas policy defaults", () => {
  it("bounds the budgets on a real network and leaves them open on a test network, with the same ceilings", () => {
    const real = policyOf(undefined, false)
    const test = policyOf(undefined, true)
    expect(real).toEqual(defaultGasPolicy)
    expect([test.budgetPerBuyer, test.budgetTotal]).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY])
    expect([test.authorization, test.signatureCheck]).toEqual([real.authorization, real.signatureCheck])
  })

  it("takes a chain's own settings over either default", () => {
    expect(policyOf({ budgetPerBuyer: 150_000 }, true).budgetPerBuyer).toBe(150_000)
    expect(policyOf({ authorization: 100_000 }, false).authorization).toBe(100_000)
  })
})
