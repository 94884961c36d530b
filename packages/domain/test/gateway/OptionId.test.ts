import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Mac } from "effect/crypto"
import { errorCode } from "../../src/errors/DomainErrors.ts"
import { seededSecureRandom } from "../../src/testing/TestPorts.ts"
import { type OptionClaims, OptionIds } from "../../src/gateway/OptionId.ts"

const secret = (fill: number) => new Uint8Array(32).fill(fill)
const layer = (fill: number) => OptionIds.layer(secret(fill)).pipe(Layer.provide(Mac.layerWebCrypto), Layer.provide(seededSecureRandom(1)))

const claims: OptionClaims = {
  paymentId: "pay_01",
  account: "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  asset: "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
  value: "10500000",
  expiresAt: null,
  kind: "pull",
  nonce: `0x${"ab".repeat(32)}`,
  quotedAt: 1_800_000_000
}

const codeOf = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Effect.map(() => "ok"), Effect.catch((e) => Effect.succeed(errorCode(e as never))))

describe("option ids", () => {
  it.effect("round-trip their claims and are opaque, URL-safe text", () =>
    Effect.gen(function*() {
      const ids = yield* OptionIds
      const id = yield* ids.issue(claims)
      assert.match(id, /^opt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      assert.deepStrictEqual(yield* ids.read(id), claims)
      assert.strictEqual(yield* ids.issue(claims), id)
    }).pipe(Effect.provide(layer(7))))

  it.effect("refuse tampered, truncated and foreign ids with invalid_params", () =>
    Effect.gen(function*() {
      const ids = yield* OptionIds
      const id = yield* ids.issue(claims)
      const [, body, tag] = id.split(".")
      const richer = btoa(JSON.stringify({ ...claims, value: "1" })).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
      for (const bad of [`opt1.${richer}.${tag}`, `${id}x`, id.slice(0, -4), `opt1.${body}`, `opt2.${body}.${tag}`, "", "opt1..", `${id}.x`]) {
        assert.strictEqual(yield* codeOf(ids.read(bad)), "invalid_params", bad)
      }
      const other = yield* OptionIds.pipe(Effect.provide(layer(8)))
      assert.strictEqual(yield* codeOf(other.read(id)), "invalid_params")
    }).pipe(Effect.provide(layer(7))))
})
