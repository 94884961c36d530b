import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { clientOf, parseTrustedProxies, throttleKey, type TrustedProxies } from "../src/server/ClientAddress.ts"

const trustedOf = (text: string): TrustedProxies => Result.getOrThrow(parseTrustedProxies(text))
const proxies = trustedOf("10.0.0.0/8, 192.0.2.1, fd00::/8")

describe("ClientAddress: the client behind the trusted proxies", () => {
  it("believes no forwarded header from a peer that is not a trusted proxy", () => {
    expect(clientOf(proxies, "203.0.113.9", { "x-forwarded-for": "198.51.100.7", "x-forwarded-proto": "https" })).toEqual({
      address: "203.0.113.9",
      overTls: false,
      viaTrustedProxy: false
    })
    expect(clientOf(trustedOf(""), "10.0.0.2", { "x-forwarded-for": "198.51.100.7" }).address).toBe("10.0.0.2")
  })

  it("reads X-Forwarded-For right to left, skipping trusted hops: what the client wrote itself is never reached", () => {
    const via = (forwardedFor: string) => clientOf(proxies, "10.0.0.2", { "x-forwarded-for": forwardedFor }).address
    expect(via("198.51.100.7")).toBe("198.51.100.7")
    expect(via("6.6.6.6, 198.51.100.7")).toBe("198.51.100.7")
    expect(via("6.6.6.6, 198.51.100.7, 10.1.1.1, 192.0.2.1")).toBe("198.51.100.7")
    // Every hop trusted: the leftmost.
    expect(via("10.9.9.9, 10.1.1.1")).toBe("10.9.9.9")
    // Garbage ends the walk at the last hop a trusted proxy vouched for.
    expect(via("198.51.100.7, unknown, 10.1.1.1")).toBe("10.1.1.1")
    expect(via("")).toBe("10.0.0.2")
    expect(clientOf(proxies, "10.0.0.2", {}).address).toBe("10.0.0.2")
    // IPv4-mapped and bracketed forms are the same addresses.
    expect(clientOf(proxies, "::ffff:10.0.0.2", { "x-forwarded-for": "[2001:db8::1]" }).address).toBe("2001:db8::1")
    expect(clientOf(proxies, "fd00::5", { "x-forwarded-for": "::ffff:198.51.100.7" }).address).toBe("198.51.100.7")
  })

  it("takes TLS from the nearest trusted proxy's X-Forwarded-Proto only", () => {
    expect(clientOf(proxies, "10.0.0.2", { "x-forwarded-proto": "https" }).overTls).toBe(true)
    expect(clientOf(proxies, "10.0.0.2", { "x-forwarded-proto": "HTTPS" }).overTls).toBe(true)
    expect(clientOf(proxies, "10.0.0.2", { "x-forwarded-proto": "https, http" }).overTls).toBe(false)
    expect(clientOf(proxies, "10.0.0.2", {}).overTls).toBe(false)
    expect(clientOf(proxies, undefined, { "x-forwarded-proto": "https" })).toEqual({ address: "unknown", overTls: false, viaTrustedProxy: false })
  })

  it("groups IPv6 clients by /64 and keeps IPv4 addresses whole", () => {
    expect(throttleKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64")
    expect(throttleKey("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64")
    expect(throttleKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64")
    expect(throttleKey("198.51.100.7")).toBe("198.51.100.7")
    expect(throttleKey("unknown")).toBe("unknown")
  })

  it("refuses a TRUSTED_PROXIES entry that is no address or block, naming it", () => {
    for (const bad of ["10.0.0.0/33", "proxy.internal", "10.0.0.1/8/8", "::g"]) {
      const parsed = parseTrustedProxies(`10.0.0.1, ${bad}`)
      expect(Result.isFailure(parsed), bad).toBe(true)
      expect(Result.isFailure(parsed) ? parsed.failure.message : "").toContain(JSON.stringify(bad))
    }
    expect(Result.isSuccess(parseTrustedProxies(" "))).toBe(true)
  })
})
