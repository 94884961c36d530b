/**
 * Secrets and personal data at rest: AES-256-GCM under one service key, bound to a context string
 * as additional data (a ciphertext copied onto another row does not decrypt). Webhook signing
 * secrets use the endpoint id as context; buyer data uses its payment and account. Stored form:
 * `v1.<base64 12-byte nonce>.<base64 ciphertext‖tag>`.
 *
 * The key is `WEBHOOK_SECRET_KEY` (base64 of 32 bytes; the same on every instance). When it is
 * unset — the embedded default — a random key is created on first use in a file beside the
 * embedded database directory (`<PAYGATE_DATA_DIR>.webhook-secret-key`, mode 0600) and reused
 * afterwards, with one warning per process. Losing that file makes stored secrets unreadable
 * (deliveries then fail until endpoints are registered again) and so is stored buyer data.
 *
 * @module
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { readFile, writeFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import * as Configuration from "../Configuration.ts"
import * as PrivateFiles from "../PrivateFiles.ts"

/** A stored secret could not be decrypted (wrong key, or tampered). */
export class SecretDecryptionError extends Schema.TaggedError<SecretDecryptionError>()("SecretDecryptionError", {
  message: Schema.String
}) {}

/** The key is not base64 of 32 bytes. */
export class InvalidSecretKey extends Schema.TaggedError<InvalidSecretKey>()("InvalidSecretKey", {
  message: Schema.String
}) {}

/** Encrypts and decrypts texts at rest, each bound to its context (e.g. the id of its row). */
export class AtRestCipher extends Context.Service<AtRestCipher, {
  readonly encrypt: (context: string, plaintext: Redacted.Redacted<string>) => Effect.Effect<string>
  readonly decrypt: (context: string, stored: string) => Effect.Effect<Redacted.Redacted<string>, SecretDecryptionError>
}>()("@paygate/adapters/AtRestCipher") {}

/** The {@link AtRestCipher} as the webhook adapters name it: contexts are endpoint ids. */
export const WebhookSecretCipher = AtRestCipher
/** The {@link AtRestCipher}. */
export type WebhookSecretCipher = AtRestCipher

const version = "v1"

/** A 32-byte key from its base64 text. */
export const parseKey = (text: string): Effect.Effect<Uint8Array, InvalidSecretKey> => {
  const bytes = Buffer.from(text.trim(), "base64")
  return bytes.length === 32 && bytes.toString("base64") === text.trim()
    ? Effect.succeed(new Uint8Array(bytes))
    : Effect.fail(new InvalidSecretKey({ message: "WEBHOOK_SECRET_KEY must be the base64 of 32 bytes." }))
}

/** A new random key, base64 (what to put in `WEBHOOK_SECRET_KEY`). */
export const generateKey = (): string => randomBytes(32).toString("base64")

/** The cipher under a key obtained (once, lazily) from `key`. */
export const make = (key: Effect.Effect<Uint8Array>): Effect.Effect<WebhookSecretCipher["Service"]> =>
  Effect.map(Effect.cached(key), (cachedKey) =>
    WebhookSecretCipher.of({
      encrypt: (context, plaintext) =>
        Effect.map(cachedKey, (k) => {
          const nonce = randomBytes(12)
          const cipher = createCipheriv("aes-256-gcm", k, nonce)
          cipher.setAAD(Buffer.from(context, "utf8"))
          const body = Buffer.concat([cipher.update(Redacted.value(plaintext), "utf8"), cipher.final(), cipher.getAuthTag()])
          return `${version}.${nonce.toString("base64")}.${body.toString("base64")}`
        }),
      decrypt: (context, stored) =>
        Effect.flatMap(cachedKey, (k) =>
          Effect.try({
            try: () => {
              const [v, nonce, body] = stored.split(".")
              if (v !== version || nonce === undefined || body === undefined) throw new Error("unknown format")
              const bytes = Buffer.from(body, "base64")
              const decipher = createDecipheriv("aes-256-gcm", k, Buffer.from(nonce, "base64"))
              decipher.setAAD(Buffer.from(context, "utf8"))
              decipher.setAuthTag(bytes.subarray(bytes.length - 16))
              const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()])
              return Redacted.make(plain.toString("utf8"))
            },
            catch: () => new SecretDecryptionError({ message: `The data stored for ${context} cannot be decrypted with this key.` })
          }))
    }))

/** The cipher under a fixed key (tests, tools). */
export const layerKey = (key: Uint8Array): Layer.Layer<WebhookSecretCipher> =>
  Layer.effect(WebhookSecretCipher, make(Effect.succeed(key)))

/** Where the local key lives when `WEBHOOK_SECRET_KEY` is unset: beside the embedded data directory. */
export const localKeyPath = (dataDir: string): string => `${resolve(dataDir)}.webhook-secret-key`

// Local keys read or created in this process, by path: one warning and one file read each.
const localKeys = new Map<string, Promise<Uint8Array>>()
const warned = new Set<string>()

const loadLocalKey = (path: string): Promise<Uint8Array> => {
  let pending = localKeys.get(path)
  if (pending === undefined) {
    pending = (async () => {
      await PrivateFiles.makePrivateDirectory(dirname(path))
      try {
        await writeFile(path, `${generateKey()}\n`, { flag: "wx", mode: PrivateFiles.fileMode })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        // An existing key is made owner-only again (copied or restored with a wider mode).
        await PrivateFiles.restrictFile(path)
      }
      const bytes = Buffer.from((await readFile(path, "utf8")).trim(), "base64")
      if (bytes.length !== 32) throw new Error(`${path} does not hold the base64 of 32 bytes`)
      return new Uint8Array(bytes)
    })()
    localKeys.set(path, pending)
  }
  return pending
}

/**
 * The cipher from configuration: `WEBHOOK_SECRET_KEY` (validated when the layer is built), else
 * the local key file beside `PAYGATE_DATA_DIR`, created on first use, with a warning.
 */
export const layerFromConfig: Layer.Layer<WebhookSecretCipher, Config.ConfigError | InvalidSecretKey> = Layer.effect(
  WebhookSecretCipher,
  Effect.gen(function*() {
    const text = Option.map(yield* Configuration.webhooks.secretKey, Redacted.value)
    if (Option.isSome(text)) return yield* make(Effect.succeed(yield* parseKey(text.value)))
    const dataDir = yield* Configuration.dataDir
    const path = localKeyPath(dataDir)
    return yield* make(
      Effect.promise(() => loadLocalKey(path)).pipe(
        Effect.tap(() => {
          if (warned.has(path)) return Effect.void
          warned.add(path)
          return Effect.logWarning(
            `WEBHOOK_SECRET_KEY is unset: webhook signing secrets and buyer data are encrypted with the local key in ${path}. ` +
              "Set WEBHOOK_SECRET_KEY (base64 of 32 bytes, the same on every instance) in production."
          )
        })
      )
    )
  })
)
