import { describe, expect, it } from "vitest"
import {
  defaultDataCollectionThreshold,
  isDataCollectionThreshold,
  reachesThreshold
} from "../../src/datacollection/DataCollectionThreshold.ts"

describe("data collection threshold", () => {
  it("is 1000.00 in the payment's currency by default, compared in minor units", () => {
    expect(defaultDataCollectionThreshold).toBe("1000.00")
    // USD (2 decimals): 1000.00 is 100000 minor units.
    expect(reachesThreshold(100_000n, 2, defaultDataCollectionThreshold)).toBe(true)
    expect(reachesThreshold(99_999n, 2, defaultDataCollectionThreshold)).toBe(false)
    // JPY (0 decimals) and KWD (3 decimals).
    expect(reachesThreshold(1_000n, 0, defaultDataCollectionThreshold)).toBe(true)
    expect(reachesThreshold(999n, 0, defaultDataCollectionThreshold)).toBe(false)
    expect(reachesThreshold(1_000_000n, 3, defaultDataCollectionThreshold)).toBe(true)
    expect(reachesThreshold(999_999n, 3, defaultDataCollectionThreshold)).toBe(false)
  })

  it("compares exactly whatever the threshold's decimals", () => {
    expect(reachesThreshold(50n, 2, "0.5")).toBe(true)
    expect(reachesThreshold(49n, 2, "0.5")).toBe(false)
    // More decimals than the currency has: 0.001 USD is reached by one cent, not by nothing.
    expect(reachesThreshold(1n, 2, "0.001")).toBe(true)
    expect(reachesThreshold(0n, 2, "0.001")).toBe(false)
    expect(reachesThreshold(25_000n, 2, "250")).toBe(true)
    expect(reachesThreshold(24_999n, 2, "250")).toBe(false)
    expect(reachesThreshold(1n, 2, "0")).toBe(true)
    expect(reachesThreshold(123_456_789_012_345_678n, 2, "1234567890123456.78")).toBe(true)
    expect(reachesThreshold(123_456_789_012_345_677n, 2, "1234567890123456.78")).toBe(false)
  })

  it("accepts plain unsigned decimals only", () => {
    for (const good of ["0", "250", "1000.00", "0.5"]) expect(isDataCollectionThreshold(good)).toBe(true)
    for (const bad of ["", "-1", "1e3", "1,000", " 1", ".5", "01", "abc", "1."]) expect(isDataCollectionThreshold(bad)).toBe(false)
  })
})
