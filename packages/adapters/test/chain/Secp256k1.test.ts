import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Effect, Redacted } from "effect"
import { type Hex, hexToBytes, keccak256, parseSignature, recoverAddress, toHex } from "viem"
import { privateKeyToAccount, sign } from "viem/accounts"
import { recoverSigner, signHash } from "../../src/chain/Secp256k1.ts"
import { fromPrivateKey } from "../../src/chain/TransactionSigner.ts"

// The service signs and recovers with libsecp256k1 (WebAssembly); viem is the reference it must match.
const viemOrNull = (hash: Hex, signature: Hex) => recoverAddress({ hash, signature }).catch(() => null)

const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const word = (value: bigint) => value.toString(16).padStart(64, "0")

const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toHex).filter((key) => {
  const k = BigInt(key)
  return k > 0n && k < n
})
const hash = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => keccak256(bytes))
const anyWord = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(toHex)
const uint = (bits: number) => fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) - 1n })

describe("signHash and the local transaction signer", () => {
  it("sign what viem signs, byte for byte", async () => {
    await fc.assert(fc.asyncProperty(privateKey, hash, async (key, digest) => {
      const ours = signHash(hexToBytes(digest), hexToBytes(key))
      const viems = await sign({ hash: digest, privateKey: key })
      expect(ours).toEqual({ r: viems.r, s: viems.s, yParity: viems.yParity })
    }), { numRuns: 60 })
  })

  // A tip above the fee cap is refused by viem's serializer, before any signing, in both.
  it("serialize the transaction viem's account signs, contract creations and empty data included, and refuse what it refuses", async () => {
    const transaction = fc.record({
      chainId: fc.integer({ min: 1, max: 2 ** 32 }),
      nonce: fc.nat(),
      to: fc.option(address, { nil: undefined }),
      data: fc.uint8Array({ maxLength: 300 }).map(toHex),
      value: uint(256),
      gas: uint(64),
      maxFeePerGas: uint(128),
      maxPriorityFeePerGas: uint(128)
    })
    await fc.assert(fc.asyncProperty(privateKey, transaction, async (key, tx) => {
      const signed = await Effect.runPromise(fromPrivateKey(Redacted.make(key as Hex)).sign(tx).pipe(Effect.orElseSucceed(() => "refused")))
      const viems = await privateKeyToAccount(key).signTransaction({ type: "eip1559", ...tx }).catch(() => "refused")
      expect(signed).toBe(viems)
      if (tx.maxPriorityFeePerGas <= tx.maxFeePerGas) expect(signed).not.toBe("refused")
    }), { numRuns: 80 })
  })
})

describe("recoverSigner", () => {
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

  // Whether the high-s twin is refused is the caller's rule (it is for an EIP-3009 authorization);
  // recovery itself must answer what viem answers, or that rule would be checked against another signer.
  it("agrees with viem on the malleable twin, on r or s of zero, n or above, and on r that is no point's x", async () => {
    await fc.assert(fc.asyncProperty(privateKey, hash, async (key, digest) => {
      const signature = await privateKeyToAccount(key).sign({ hash: digest })
      const { r, s, yParity } = parseSignature(signature)
      const twin = `0x${r.slice(2)}${word(n - BigInt(s))}${yParity === 0 ? "1c" : "1b"}` as Hex
      const twinSigner = recoverSigner(digest, twin)
      expect(twinSigner).not.toBeNull()
      expect(twinSigner).toBe(await viemOrNull(digest, twin))
      for (const [rr, ss] of [[0n, BigInt(s)], [BigInt(r), 0n], [n, BigInt(s)], [BigInt(r), n], [n + 1n, BigInt(s)], [BigInt(r), 2n ** 256n - 1n]]) {
        const bad = `0x${word(rr!)}${word(ss!)}1b` as Hex
        expect(recoverSigner(digest, bad)).toBeNull()
        expect(await viemOrNull(digest, bad)).toBeNull()
      }
    }), { numRuns: 20 })
    await fc.assert(fc.asyncProperty(hash, anyWord, anyWord, fc.constantFrom("1b", "1c", "00", "01"), async (digest, r, s, v) => {
      const signature = `0x${word(r)}${word(s)}${v}` as Hex
      expect(recoverSigner(digest, signature)).toBe(await viemOrNull(digest, signature))
    }), { numRuns: 200 })
    // Small r: about half are no point's x.
    for (let r = 1n; r <= 16n; r++) {
      const signature = `0x${word(r)}${word(12345n)}1b` as Hex
      expect(recoverSigner(`0x${"33".repeat(32)}`, signature)).toBe(await viemOrNull(`0x${"33".repeat(32)}`, signature))
    }
  })
})
