import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { headerValueLimit, keptBody, responseBodyLimit, responseOf } from "../../src/webhooks/DeliveryExchange.ts"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("responseOf", () => {
  it("keeps the status, the headers worth seeing (lower case, repeated ones joined) and the body as text", () => {
    const response = responseOf({
      status: 503,
      headers: { "Content-Type": "application/json", "Retry-After": "120", "set-cookie": ["a=1", "b=2"], server: "x", location: undefined },
      body: bytes("{\"error\":\"busy\"}"),
      truncated: false
    })
    expect(response).toMatchObject({
      status: 503,
      headers: { "content-type": "application/json", "retry-after": "120" },
      body: "{\"error\":\"busy\"}",
      truncated: false
    })
    expect(responseOf({ status: 204, headers: {}, body: new Uint8Array(), truncated: false }).body).toBe("")
  })

  it("replaces NUL and invalid UTF-8, and cuts long header values", () => {
    const response = responseOf({
      status: 200,
      headers: { "content-type": `text/plain\u0000${"x".repeat(1000)}` },
      body: new Uint8Array([0x61, 0x00, 0xff, 0xfe, 0xc3, 0x28, 0x62]),
      truncated: false
    })
    expect(response.body).toBe("a\uFFFD\uFFFD\uFFFD\uFFFD(b")
    expect(response.headers["content-type"]).toBe(`text/plain\uFFFD${"x".repeat(headerValueLimit - 11)}`)
  })

  it("keeps at most the limit, marks the cut and drops a character the cut split", () => {
    const long = bytes(`${"a".repeat(responseBodyLimit - 1)}é and more`)
    const response = responseOf({ status: 200, headers: {}, body: long, truncated: false })
    expect(response.truncated).toBe(true)
    expect(response.body).toBe("a".repeat(responseBodyLimit - 1))
    // Cut short by the sender (time limit): an unfinished last character is dropped too.
    expect(keptBody(bytes("ok é").subarray(0, 4), true)).toBe("ok ")
    expect(keptBody(bytes("ok é").subarray(0, 4), false)).toBe("ok \uFFFD")
  })

  it("never keeps NUL or more than the limit of characters, whatever the bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: responseBodyLimit * 2 }), fc.boolean(), (body, truncated) => {
        const response = responseOf({ status: 200, headers: {}, body, truncated })
        expect(response.body.length).toBeLessThanOrEqual(responseBodyLimit)
        expect(response.body.includes("\u0000")).toBe(false)
        expect(response.truncated).toBe(truncated || body.length > responseBodyLimit)
      })
    )
  })
})
