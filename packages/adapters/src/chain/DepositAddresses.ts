/**
 * Per-payment deposit addresses: the CREATE2 address of a forwarder under a chain's deposit
 * factory, its salt the keccak-256 of the payment id. Computed without a transaction; distinct
 * payment ids give distinct salts, hence distinct addresses (a collision would be a keccak-256
 * collision). Nothing is deployed until the executor sweeps: `sweep(token, salts)` deploys each
 * forwarder that is not there yet and sends its whole balance to the factory's destination, in one
 * transaction for many.
 *
 * Two versions: the first `DepositFactory` (`packages/adapters/contracts/DepositFactory.sol`)
 * sweeps tokens only; `DepositFactoryV2` (`DepositFactoryV2.sol`) sweeps the chain's own coin too
 * (its token {@link nativeToken}). Their forwarders' code differs, so the same payment has another
 * address under each: a chain hands out addresses of its `depositFactory` (version 2) and keeps
 * watching and sweeping those its first factory (`depositFactoryV1`) handed out before. Which
 * factory made an address is read from the address itself ({@link factoryOf}).
 *
 * @module
 */
import { type Address, encodeFunctionData, getContractAddress, type Hex, keccak256, stringToBytes } from "viem"
import { DepositFactoryV2, DepositForwarder, DepositForwarderV2 } from "./contracts.generated.ts"
import { sameAddress } from "./EvmAddress.ts"

/** A deposit factory of a chain and its version. */
export interface Factory {
  readonly address: Address
  /** 1: tokens only; 2: tokens and the chain's own coin. */
  readonly version: 1 | 2
}

/** The salt of a payment's forwarder: keccak-256 of its id (UTF-8). */
export const saltOf = (paymentId: string): Hex => keccak256(stringToBytes(paymentId))

const forwarderCodeHashes = { 1: keccak256(DepositForwarder.bytecode), 2: keccak256(DepositForwarderV2.bytecode) } as const

// An address costs tens of microseconds to compute (keccak-256 in JS), and the watcher, the sweeper and the
// reconciliation ask which factory made each watched deposit on every pass: the latest answers are kept.
const computed = new Map<string, Address>()
const kept = 20_000

/** The deposit address of `paymentId` under `factory` (a version-2 factory unless said), EIP-55. */
export const depositAddress = (factory: Address, paymentId: string, version: Factory["version"] = 2): Address => {
  const key = `${version}:${factory.toLowerCase()}:${paymentId}`
  let address = computed.get(key)
  if (address === undefined) {
    address = getContractAddress({ opcode: "CREATE2", from: factory, salt: saltOf(paymentId), bytecodeHash: forwarderCodeHashes[version] })
    if (computed.size >= kept) computed.delete(computed.keys().next().value!)
    computed.set(key, address)
  }
  return address
}

/** A chain's factories: the one handing out addresses first, then the first version's, still swept. */
export const factoriesOf = (chain: { readonly depositFactory?: string | undefined; readonly depositFactoryV1?: string | undefined }): ReadonlyArray<Factory> => [
  ...(chain.depositFactory === undefined ? [] : [{ address: chain.depositFactory as Address, version: 2 as const }]),
  ...(chain.depositFactoryV1 === undefined ? [] : [{ address: chain.depositFactoryV1 as Address, version: 1 as const }])
]

/** The factory of `factories` whose forwarder for `paymentId` sits at `address`; `undefined` when none. */
export const factoryOf = (factories: ReadonlyArray<Factory>, paymentId: string, address: string): Factory | undefined =>
  factories.find((factory) => sameAddress(depositAddress(factory.address, paymentId, factory.version), address))

/** The calldata of one sweep: deploy (where needed) and sweep the forwarders of `salts` in `token` (both versions take it). */
export const sweepCall = (token: Address, salts: ReadonlyArray<Hex>): Hex =>
  encodeFunctionData({ abi: DepositFactoryV2.abi, functionName: "sweep", args: [token, [...salts]] })
