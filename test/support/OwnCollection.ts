/**
 * A second deployment on a test file's chain: the chain settings (as `PAYGATE_CHAINS` has them)
 * collecting at a fresh address of their own. Two deployments never share a collection address
 * (each would record the other's transfers there as unmatched), so two servers running side by
 * side on one chain must not either: the ledger check as they close (`ChainLedgerWindows`) reads
 * every transfer to an address as its own deployment's.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

interface Settings {
  readonly chains: ReadonlyArray<{ readonly collectionAddress: string }>
}

/** `settings` with every chain collecting at one new address (its key beside it, for payouts). */
export const ownCollection = <S extends Settings>(settings: S): S => {
  const key = generatePrivateKey()
  const address = privateKeyToAccount(key).address
  return { ...settings, chains: settings.chains.map((chain) => ({ ...chain, collectionAddress: address, collectionPrivateKey: key })) }
}
