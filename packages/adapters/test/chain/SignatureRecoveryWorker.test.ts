import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Hex, keccak256, parseSignature, recoverAddress, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { recoverSigner } from "../../src/chain/SignatureRecoveryWorker.ts"

// The worker recovers with @noble directly; viem's recoverAddress is the reference it must match.
const viemOrNull = (hash: Hex, signature: Hex) => recoverAddress({ hash, signature }).catch(() => null)

const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toHex).filter((key) => {
  const n = BigInt(key)
  return n > 0n && n < 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
})
const hash = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => keccak256(bytes))

describe("recoverSigner (the recovery worker's)", () => {
  it("recovers the checksummed signer viem recovers, with v as 27/28 or as yParity 0/1", async () => {
    await fc.assert(fc.asyncProperty(privateKey, hash, async (key, digest) => {
      const account = privateKeyToAccount(key)
      const signature = await account.sign({ hash: digest })
      expect(recoverSigner(digest, signature)).toBe(account.address)
      const { yParity } = parseSignature(signature)
      expect(recoverSigner(digest, `${signature.slice(0, 130)}0${yParity}` as Hex)).toBe(account.address)
    }), { numRuns: 40 })
  })

  it("agrees with viem on tampered and malformed signatures", async () => {
    await fc.assert(fc.asyncProperty(privateKey, hash, fc.nat({ max: 129 }), fc.integer({ min: 1, max: 15 }), async (key, digest, at, flip) => {
      const signature = await privateKeyToAccount(key).sign({ hash: digest })
      const digit = (parseInt(signature[2 + at]!, 16) ^ flip).toString(16)
      const tampered = `${signature.slice(0, 2 + at)}${digit}${signature.slice(3 + at)}` as Hex
      expect(recoverSigner(digest, tampered)).toBe(await viemOrNull(digest, tampered))
    }), { numRuns: 60 })
    const signature = await privateKeyToAccount(`0x${"11".repeat(32)}`).sign({ hash: `0x${"22".repeat(32)}` })
    for (const bad of [signature.slice(0, 130), `${signature.slice(0, 130)}1d`, `${signature}00`, "0x", "0xzz"] as Array<Hex>) {
      expect(recoverSigner(`0x${"22".repeat(32)}`, bad)).toBeNull()
    }
    expect(recoverSigner("0x1234", signature)).toBeNull()
  })
})
