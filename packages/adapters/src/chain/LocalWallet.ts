/**
 * What a wallet does with an option's `eth_signTypedData_v4` action, for a local key: parse the
 * served typed-data JSON (numbers as JSON numbers or decimal strings) and sign it. Used by the
 * sandbox pay script, the benchmarks and the tests; never by the service.
 *
 * @module
 */
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"

/** Signs the typed-data JSON of an `eth_signTypedData_v4` action's second parameter with `privateKey`. */
export const signTypedDataJson = (privateKey: Hex, json: string): Promise<Hex> => {
  const typed = JSON.parse(json)
  // viem derives the domain type itself.
  const { EIP712Domain: _domain, ...types } = typed.types
  return privateKeyToAccount(privateKey).signTypedData({
    domain: typed.domain,
    types,
    primaryType: typed.primaryType,
    // Integers as JSON numbers or decimal strings: viem encodes either (EIP-3009's and Permit2's alike).
    message: typed.message
  })
}

/** Signs the `eth_signTypedData_v4` action of a pull option (its last; as served by the options operation). */
export const signOption = (option: { readonly actions: ReadonlyArray<any> }, privateKey: Hex): Promise<Hex> =>
  signTypedDataJson(privateKey, option.actions.at(-1).data.params[1])
