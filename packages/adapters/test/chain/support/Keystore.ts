/**
 * Writes V3 keystores for tests, as geth does (scrypt, aes-128-ctr, keccak-256 MAC), with a cheap
 * work factor: what `KeystoreV3.decrypt` must read.
 */
import { createCipheriv, randomBytes, scryptSync } from "node:crypto"
import { type Hex, hexToBytes, keccak256 } from "viem"

export const encryptKeystore = (privateKey: Hex, passphrase: string, address: string): string => {
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const n = 4096
  const derived = scryptSync(Buffer.from(passphrase, "utf8"), salt, 32, { N: n, r: 8, p: 1 })
  const cipher = createCipheriv("aes-128-ctr", derived.subarray(0, 16), iv)
  const ciphertext = Buffer.concat([cipher.update(hexToBytes(privateKey)), cipher.final()])
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2)
  return JSON.stringify({
    version: 3,
    id: "6c8a1b52-7a37-4c05-8e0f-0b5d3c5f8f11",
    address: address.slice(2).toLowerCase(),
    crypto: {
      cipher: "aes-128-ctr",
      cipherparams: { iv: iv.toString("hex") },
      ciphertext: ciphertext.toString("hex"),
      kdf: "scrypt",
      kdfparams: { dklen: 32, n, r: 8, p: 1, salt: salt.toString("hex") },
      mac
    }
  })
}
