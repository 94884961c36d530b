/**
 * Team members' passwords: scrypt (node:crypto) with a random 16-byte salt, stored as
 * `scrypt$N$r$p$salt$hash` so the cost can rise later without breaking stored hashes; compared in
 * constant time. The domain's `PasswordHasher` ({@link layer}).
 *
 * @module
 */
import { PasswordHasher } from "@paygate/domain"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect, Layer } from "effect"

const cost = { N: 16384, r: 8, p: 1 } as const
const keyLength = 32

const derive = (password: string, salt: Buffer, params: { readonly N: number; readonly r: number; readonly p: number }) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { ...params, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.die(error)))
  })

/** The stored form of a new password. */
export const hashPassword = (password: string) =>
  Effect.suspend(() => {
    const salt = randomBytes(16)
    return Effect.map(derive(password, salt, cost), (key) =>
      `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64url")}$${key.toString("base64url")}`)
  })

/** A hash of no password: checked against when no member has the email, so both answers take as long. */
export const absentPasswordHash = `scrypt$${cost.N}$${cost.r}$${cost.p}$${"A".repeat(22)}$${"A".repeat(43)}`

/** Whether `password` is the one `stored` was made from. */
export const verifyPassword = (password: string, stored: string) => {
  const [scheme, n, r, p, salt, expected] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || expected === undefined) return Effect.succeed(false)
  const want = Buffer.from(expected, "base64url")
  return Effect.map(
    derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) }),
    (key) => key.length === want.length && timingSafeEqual(key, want)
  )
}

/** `PasswordHasher` by scrypt; a missing stored hash is checked against {@link absentPasswordHash}. */
export const layer: Layer.Layer<PasswordHasher> = Layer.succeed(PasswordHasher, PasswordHasher.of({
  hash: hashPassword,
  verify: (password, stored) => verifyPassword(password, stored ?? absentPasswordHash)
}))
