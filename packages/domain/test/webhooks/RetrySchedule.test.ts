import { describe, expect, it } from "vitest"
import { contractRetrySchedule, maxAttempts, retryDelay } from "../../src/webhooks/RetrySchedule.ts"

describe("retryDelay", () => {
  it("follows API rules §6: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then none", () => {
    const nominal = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]
    nominal.forEach((delay, index) => expect(retryDelay(contractRetrySchedule, index + 1, 0.5)).toBe(delay))
    expect(retryDelay(contractRetrySchedule, 8, 0.5)).toBeUndefined()
    expect(maxAttempts(contractRetrySchedule)).toBe(8)
  })

  it("jitters by at most ±10%", () => {
    expect(retryDelay(contractRetrySchedule, 1, 0)).toBe(4_500)
    expect(retryDelay(contractRetrySchedule, 1, 0.999999)).toBe(5_500)
    for (let i = 0; i < 200; i++) {
      const delay = retryDelay(contractRetrySchedule, 2, Math.random())!
      expect(delay).toBeGreaterThanOrEqual(270_000)
      expect(delay).toBeLessThanOrEqual(330_000)
    }
  })

  it("takes any schedule (tests run fast ones) and refuses nonsense attempt counts", () => {
    const fast = { delays: [10, 20], jitter: 0 }
    expect([1, 2, 3].map((n) => retryDelay(fast, n, 0.3))).toEqual([10, 20, undefined])
    expect(retryDelay(fast, 0, 0.5)).toBeUndefined()
    expect(retryDelay(fast, 1.5, 0.5)).toBeUndefined()
  })
})
