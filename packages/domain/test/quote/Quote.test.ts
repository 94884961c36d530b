import { describe, expect, it } from "vitest"
import { Rate } from "../../src/money/Rate.ts"
import { quote } from "../../src/quote/Quote.ts"

describe("quote", () => {
  it("prices a pegged stablecoin 1:1 with no expiry", () => {
    const q = quote({ fiatMinor: 1050n, fiatExponent: 2, tokenDecimals: 6, pricing: { _tag: "Peg" }, nowSeconds: 1000, ttlSeconds: 300 })
    expect(q.tokenAmount).toBe(10_500_000n)
    expect(q.expiresAt).toBeNull()
  })

  it("converts at a rate, rounds up, and expires after the TTL", () => {
    // 1 ETH = 3000 USD → 1/3000 ETH per USD; 10.00 USD = 1/300 ETH = 3333333333333333.33… wei → rounded up.
    const rate = new Rate({ numerator: 1n, denominator: 3000n })
    const q = quote({ fiatMinor: 1000n, fiatExponent: 2, tokenDecimals: 18, pricing: { _tag: "Rate", rate }, nowSeconds: 1000, ttlSeconds: 300 })
    expect(q.tokenAmount).toBe(3_333_333_333_333_334n)
    expect(q.expiresAt).toBe(1300)
  })

  it("handles zero-exponent currencies exactly", () => {
    const q = quote({ fiatMinor: 1500n, fiatExponent: 0, tokenDecimals: 6, pricing: { _tag: "Peg" }, nowSeconds: 0, ttlSeconds: 300 })
    expect(q.tokenAmount).toBe(1_500_000_000n)
  })
})
