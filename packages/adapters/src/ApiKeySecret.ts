/**
 * API key secrets (API rules §8, §2): `sk_live_` / `sk_test_` (partner) or `wk_live_` / `wk_test_`
 * (wallet) followed by 32 random bytes in base64url. Only {@link hashSecret} of the whole secret
 * is ever stored; the HTTP layer hashes presented keys with the same function, through the
 * domain's `SecretDigest` (`Sha256SecretDigest`). What a key's shape announces is the domain's
 * (`kindOfSecret`).
 *
 * @module
 */
import type { ApiKeyKind, Mode } from "@paygate/domain"
import { hash, randomBytes } from "node:crypto"

/** Random bytes in a new secret. */
export const secretBytes = 32

/** The prefix of a key of this kind and mode, e.g. `sk_test_`. */
export const apiKeyPrefix = (kind: ApiKeyKind, mode: Mode): string =>
  `${kind === "partner" ? "sk" : "wk"}_${mode === "live" ? "live" : "test"}_`

/** A fresh secret: the prefix and {@link secretBytes} bytes from the OS CSPRNG, base64url. */
export const newApiKeySecret = (kind: ApiKeyKind, mode: Mode): string =>
  apiKeyPrefix(kind, mode) + randomBytes(secretBytes).toString("base64url")

/**
 * SHA-256 of a presented secret as lowercase hex: the only form in which keys are stored and looked
 * up. Every authenticated request hashes its key: the one-shot `hash` costs a quarter of a
 * `createHash` object's update and digest.
 */
export const hashSecret = (secret: string): string => hash("sha256", secret, "hex")

/** Characters of a secret's end kept as its hint (`GET /v1/api-keys`): enough to tell keys apart, far too few to guess one. */
export const hintLength = 4

/** The last {@link hintLength} characters of a secret: the only part of it ever stored. */
export const secretHint = (secret: string): string => secret.slice(-hintLength)
