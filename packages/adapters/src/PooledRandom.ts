/**
 * Cryptographically secure random bytes drawn from a pool refilled 4 KiB at a time
 * (`crypto.randomFillSync`), instead of one system call per draw: every request takes a few
 * (its request id, new resource ids), and a system call each is a visible part of its CPU. Node's
 * own `crypto.randomUUID` caches its entropy the same way. Each draw returns fresh bytes that
 * are never handed out again.
 *
 * @module
 */
import { Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { randomFillSync } from "node:crypto"

const pool = new Uint8Array(4096)
let offset = pool.length

/** `size` secure random bytes, as a new array. Large draws bypass the pool. */
export const randomBytes = (size: number): Uint8Array => {
  if (size > 256) return randomFillSync(new Uint8Array(size))
  if (offset + size > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const bytes = pool.slice(offset, offset + size)
  offset += size
  return bytes
}

/** `SecureRandom` drawing from the pool. */
export const layer: Layer.Layer<SecureRandom.SecureRandom> = Layer.succeed(SecureRandom.SecureRandom, SecureRandom.make(randomBytes))
