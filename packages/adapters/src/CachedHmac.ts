/**
 * `Mac` on `node:crypto`, with each secret's `KeyObject` kept: webhook signatures, and the sealed
 * tokens of the API (option ids, subscription offers and manage links).
 *
 * WebCrypto's `subtle` signs and verifies asynchronously, on the thread pool, for every tag; a tag
 * here is one synchronous call. `createHmac` given key bytes imports them into a new `KeyObject`
 * for every tag: most of the cost of an HMAC-SHA256 over a webhook body. The worker signs every
 * attempt with one of a few endpoint secrets and the API seals with one secret, so the imported
 * keys of the last 1,024 secrets are kept (secrets the process holds in memory anyway).
 *
 * @module
 */
import { Layer } from "effect"
import { Mac } from "effect/crypto"
import { createHmac, createSecretKey, type KeyObject } from "node:crypto"
import * as PooledRandom from "./PooledRandom.ts"

const maxKeys = 1024
const keys = new Map<string, KeyObject>()

const keyObject = (bytes: Uint8Array): KeyObject => {
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
  const known = keys.get(id)
  if (known !== undefined) return known
  if (keys.size >= maxKeys) keys.clear()
  const key = createSecretKey(bytes)
  keys.set(id, key)
  return key
}

const nodeHashNames: Record<string, string> = { "SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512" }

/** HMAC tags on `node:crypto` with cached keys; generated keys come from {@link PooledRandom}. */
export const layer: Layer.Layer<Mac.Mac> = Mac.layerWebCryptoWith({
  // A copy: `digest()` may answer a view into Node's shared buffer pool.
  hmac: (hash, bytes, data) => new Uint8Array(createHmac(nodeHashNames[hash] ?? hash, keyObject(bytes)).update(data).digest())
}).pipe(Layer.provide(PooledRandom.layer))
