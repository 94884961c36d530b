/**
 * Decrypts an Ethereum keystore file (Web3 Secret Storage, version 3): the key derived from the
 * passphrase (`scrypt`, or `pbkdf2` with `hmac-sha256`) must match the file's MAC (keccak-256 of
 * the derived key's second half and the ciphertext, compared in constant time) before its first
 * half decrypts the private key (`aes-128-ctr`). node:crypto and viem's keccak-256; scrypt
 * parameters OpenSSL refuses (it wants N < 2^(16·r), so N = 2^18 with r = 1 is out) go to
 * @noble/hashes' scrypt instead.
 *
 * Failures never carry the passphrase, the derived key or the private key: only what is wrong.
 *
 * @module
 */
import { createDecipheriv, pbkdf2, scrypt, timingSafeEqual } from "node:crypto"
import { scryptAsync } from "@noble/hashes/scrypt"
import { Effect, Redacted, Result, Schema } from "effect"
import { type Hex, hexToBytes, keccak256 } from "viem"

/** The keystore cannot be used: unreadable, of another format, or the passphrase is wrong. */
export class KeystoreError extends Schema.TaggedError<KeystoreError>()("KeystoreError", {
  message: Schema.String
}) {}

const HexBytes = Schema.String.pipe(Schema.check(Schema.isPattern(/^(0x)?([0-9a-fA-F]{2})+$/)))
const Positive = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 2 ** 31 })))

const ScryptParams = Schema.Struct({
  dklen: Schema.Literal(32),
  n: Positive,
  r: Positive,
  p: Positive,
  salt: HexBytes
})

const Pbkdf2Params = Schema.Struct({
  dklen: Schema.Literal(32),
  c: Positive,
  prf: Schema.Literal("hmac-sha256"),
  salt: HexBytes
})

const Crypto = Schema.Struct({
  cipher: Schema.Literal("aes-128-ctr"),
  cipherparams: Schema.Struct({ iv: HexBytes }),
  ciphertext: HexBytes,
  kdf: Schema.Literals(["scrypt", "pbkdf2"]),
  kdfparams: Schema.Union([ScryptParams, Pbkdf2Params]),
  mac: HexBytes
})

/** The fields of a V3 keystore this module reads (`Crypto` in some writers' files). */
const KeystoreFile = Schema.Struct({
  version: Schema.Literal(3),
  crypto: Schema.optionalKey(Crypto),
  Crypto: Schema.optionalKey(Crypto)
})

const bytes = (hex: string) => Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex")

const derive = (passphrase: Buffer, crypto: typeof Crypto.Type): Effect.Effect<Buffer, KeystoreError> =>
  Effect.callback<Buffer, KeystoreError>((resume) => {
    const done = (error: Error | null, key: Buffer) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(new KeystoreError({ message: `key derivation failed: ${error.message}` })))
    const params = crypto.kdfparams
    if (crypto.kdf === "scrypt" && "n" in params) {
      // scrypt needs 128 * N * r bytes; allow that and a margin, not node's 32 MiB default.
      const maxmem = 128 * params.n * params.r + 64 * 1024 * 1024
      const salt = bytes(params.salt)
      try {
        scrypt(passphrase, salt, 32, { N: params.n, r: params.r, p: params.p, maxmem }, done)
      } catch {
        scryptAsync(passphrase, salt, { N: params.n, r: params.r, p: params.p, dkLen: 32, maxmem }).then(
          (key) => done(null, Buffer.from(key)),
          (error: Error) => done(error, Buffer.alloc(0))
        )
      }
    } else if (crypto.kdf === "pbkdf2" && "c" in params) {
      pbkdf2(passphrase, bytes(params.salt), params.c, 32, "sha256", done)
    } else {
      resume(Effect.fail(new KeystoreError({ message: `kdfparams do not match kdf ${crypto.kdf}` })))
    }
  })

/** The private key of a V3 keystore (its JSON text) under `passphrase`. */
export const decrypt = (json: string, passphrase: Redacted.Redacted<string>): Effect.Effect<Redacted.Redacted<Hex>, KeystoreError> =>
  Effect.gen(function*() {
    const parsed = Result.try(() => JSON.parse(json) as unknown)
    if (Result.isFailure(parsed)) return yield* new KeystoreError({ message: "the keystore is not JSON" })
    const file = yield* Schema.decodeUnknownEffect(KeystoreFile)(parsed.success).pipe(
      Effect.mapError((error) => new KeystoreError({ message: `not a version 3 keystore (scrypt or pbkdf2, aes-128-ctr): ${error.message}` }))
    )
    const crypto = file.crypto ?? file.Crypto
    if (crypto === undefined) return yield* new KeystoreError({ message: "the keystore has no crypto section" })
    const derived = yield* derive(Buffer.from(Redacted.value(passphrase).normalize("NFKC"), "utf8"), crypto)
    const ciphertext = bytes(crypto.ciphertext)
    const mac = hexToBytes(keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])))
    const expected = bytes(crypto.mac)
    if (expected.length !== mac.length || !timingSafeEqual(expected, mac)) {
      return yield* new KeystoreError({ message: "wrong passphrase (the keystore's MAC does not match)" })
    }
    const decipher = createDecipheriv("aes-128-ctr", derived.subarray(0, 16), bytes(crypto.cipherparams.iv))
    const key = Buffer.concat([decipher.update(ciphertext), decipher.final()])
    if (key.length !== 32) return yield* new KeystoreError({ message: "the keystore does not hold a 32-byte private key" })
    return Redacted.make(`0x${key.toString("hex")}` as Hex)
  })
