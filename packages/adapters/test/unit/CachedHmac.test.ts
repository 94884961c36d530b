import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Mac } from "effect/crypto"
import { randomBytes } from "node:crypto"
import * as CachedHmac from "../../src/CachedHmac.ts"

const tagWith = (bytes: Uint8Array, data: Uint8Array) =>
  Effect.gen(function*() {
    const mac = yield* Mac.Mac
    const key = yield* Mac.key(Mac.hmacSha256, bytes)
    return Buffer.from(yield* mac.sign(key, data)).toString("hex")
  })

describe("CachedHmac", () => {
  it.effect("signs exactly as node:crypto does, for many secrets and again for the first ones", () =>
    Effect.gen(function*() {
      // More secrets than it keeps: the first ones are signed again after the cache was emptied.
      const secrets = Array.from({ length: 1100 }, () => new Uint8Array(randomBytes(32)))
      const data = new TextEncoder().encode('msg_1.1700000000.{"type":"payment.created"}')
      for (const secret of [...secrets, ...secrets.slice(0, 20)]) {
        const cached = yield* tagWith(secret, data).pipe(Effect.provide(CachedHmac.layer))
        const plain = yield* tagWith(secret, data).pipe(Effect.provide(NodeCrypto.layerMac))
        assert.strictEqual(cached, plain)
      }
    }))

  it.effect("verifies its own tags and refuses another secret's", () =>
    Effect.gen(function*() {
      const mac = yield* Mac.Mac
      const data = new TextEncoder().encode("body")
      const key = yield* Mac.key(Mac.hmacSha256, new Uint8Array(randomBytes(32)))
      const other = yield* Mac.key(Mac.hmacSha256, new Uint8Array(randomBytes(32)))
      const tag = yield* mac.sign(key, data)
      assert.isTrue(yield* mac.verify(key, tag, data))
      assert.isFalse(yield* mac.verify(other, tag, data))
    }).pipe(Effect.provide(CachedHmac.layer)))
})
