/**
 * The signer of each role on a configured chain (see `TransactionSigner.ts` and `ChainConfig.ts`):
 *
 * - `executor`: `signers.executor`, else `executorPrivateKey`.
 * - `payout`: `signers.payout`, else `collectionPrivateKey`, else none (payouts wait).
 * - `sweep`: `signers.sweep`, else the executor's signer.
 *
 * A keystore is decrypted once per process, however many jobs sign with it.
 *
 * @module
 */
import { Effect } from "effect"
import type { ChainSettings } from "./ChainConfig.ts"
import * as TransactionSigner from "./TransactionSigner.ts"

const decrypted = new Map<string, TransactionSigner.TransactionSigner>()

// Only keystores are kept: decrypting is the costly part; a remote signer is a URL.
const cached = (settings: TransactionSigner.SignerSettings, role: TransactionSigner.SignerRole) => {
  if (settings.kind !== "keystore") return TransactionSigner.make(settings, role)
  const key = `${settings.path} ${settings.address.toLowerCase()}`
  const known = decrypted.get(key)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.tap(TransactionSigner.make(settings, role), (signer) => Effect.sync(() => decrypted.set(key, signer)))
}

/** The signer of `role` on `chain`, or none (only `payout` may have none). */
export const signerFor = (
  chain: ChainSettings,
  role: TransactionSigner.SignerRole
): Effect.Effect<TransactionSigner.TransactionSigner | undefined, TransactionSigner.SignerError> => {
  const configured = chain.signers?.[role]
  if (configured !== undefined) return cached(configured, role)
  switch (role) {
    case "executor":
      return Effect.succeed(TransactionSigner.fromPrivateKey(chain.executorPrivateKey!, role))
    case "payout":
      return Effect.succeed(chain.collectionPrivateKey === undefined ? undefined : TransactionSigner.fromPrivateKey(chain.collectionPrivateKey, role))
    case "sweep":
      return signerFor(chain, "executor")
  }
}
