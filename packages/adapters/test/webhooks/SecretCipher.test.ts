import { WebhookAdapters } from "@paygate/adapters"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const { SecretCipher } = WebhookAdapters

const withCipher = <A, E>(
  layer: Layer.Layer<WebhookAdapters.SecretCipher.WebhookSecretCipher, unknown>,
  f: (cipher: WebhookAdapters.SecretCipher.WebhookSecretCipher["Service"]) => Effect.Effect<A, E>
) => Effect.runPromise(Effect.gen(function*() { return yield* f(yield* SecretCipher.WebhookSecretCipher) }).pipe(Effect.provide(layer)) as Effect.Effect<A>)

describe("WebhookSecretCipher (AES-256-GCM)", () => {
  const key = new Uint8Array(32).fill(3)
  const secret = Redacted.make("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=")

  it("round-trips, never stores the plaintext, and binds the ciphertext to its endpoint", async () => {
    await withCipher(SecretCipher.layerKey(key), (cipher) =>
      Effect.gen(function*() {
        const stored = yield* cipher.encrypt("whe_1", secret)
        expect(stored).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/)
        expect(stored).not.toContain("c2VjcmV0")
        expect(Redacted.value(yield* cipher.decrypt("whe_1", stored))).toBe(Redacted.value(secret))
        expect(yield* cipher.encrypt("whe_1", secret)).not.toBe(stored) // fresh nonce each time
        const moved = yield* Effect.flip(cipher.decrypt("whe_2", stored))
        expect(moved._tag).toBe("SecretDecryptionError")
        const tampered = stored.slice(0, -4) + (stored.endsWith("AAA=") ? "BBB=" : "AAA=")
        expect((yield* Effect.flip(cipher.decrypt("whe_1", tampered)))._tag).toBe("SecretDecryptionError")
      }))
  })

  it("reads WEBHOOK_SECRET_KEY, refusing anything but base64 of 32 bytes", async () => {
    const fromEnv = (env: Record<string, string>) =>
      SecretCipher.layerFromConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))
    const text = Buffer.from(key).toString("base64")
    const stored = await withCipher(SecretCipher.layerKey(key), (cipher) => cipher.encrypt("whe_1", secret))
    const read = await withCipher(fromEnv({ WEBHOOK_SECRET_KEY: text }), (cipher) => cipher.decrypt("whe_1", stored))
    expect(Redacted.value(read)).toBe(Redacted.value(secret))
    await expect(withCipher(fromEnv({ WEBHOOK_SECRET_KEY: "c2hvcnQ=" }), () => Effect.void)).rejects.toThrow(/32 bytes/)
  })

  it("without a key, creates one beside the data directory once (0600) and reuses it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "paygate-key-"))
    try {
      const dataDir = join(dir, "pglite")
      const layer = () =>
        SecretCipher.layerFromConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ PAYGATE_DATA_DIR: dataDir }))))
      const stored = await withCipher(layer(), (cipher) => cipher.encrypt("whe_1", secret))
      const path = SecretCipher.localKeyPath(dataDir)
      expect(path).toBe(`${dataDir}.webhook-secret-key`)
      expect(Buffer.from((await readFile(path, "utf8")).trim(), "base64").length).toBe(32)
      expect((await stat(path)).mode & 0o777).toBe(0o600)
      const read = await withCipher(layer(), (cipher) => cipher.decrypt("whe_1", stored))
      expect(Redacted.value(read)).toBe(Redacted.value(secret))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
