import { Effect, Layer, Redacted } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { generateSecret, secretKeyBytes, sign } from "../../src/webhooks/Signature.ts"

const crypto = Mac.layerWebCrypto.pipe(Layer.provideMerge(SecureRandom.layerWebCrypto))
const run = <A>(effect: Effect.Effect<A, never, Mac.Mac | SecureRandom.SecureRandom>) => Effect.runPromise(Effect.provide(effect, crypto))

describe("Standard Webhooks signature", () => {
  it("is verified by the standardwebhooks library", async () => {
    const secret = await run(generateSecret)
    expect(Redacted.value(secret)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const body = JSON.stringify({ id: "evt_1", type: "payment.created", data: { n: 1, text: "é" } })
    const now = Math.floor(Date.now() / 1000)
    const headers = await run(sign(secret, "evt_1", now, body))
    expect(headers["webhook-id"]).toBe("evt_1")
    expect(headers["webhook-timestamp"]).toBe(String(now))
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    const verified = new Webhook(Redacted.value(secret)).verify(body, { ...headers })
    expect(verified).toEqual(JSON.parse(body))
    expect(() => new Webhook(Redacted.value(secret)).verify(body + " ", { ...headers })).toThrow()
  })

  it("matches the Standard Webhooks reference vector", async () => {
    // From the Standard Webhooks specification's examples.
    const secret = Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    const body = `{"test": 2432232314}`
    const headers = await run(sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body))
    expect(headers["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("reads the key bytes after whsec_", () => {
    expect(secretKeyBytes("whsec_AAEC")).toEqual(new Uint8Array([0, 1, 2]))
    expect(secretKeyBytes("whsec_!!")).toBeUndefined()
  })
})
