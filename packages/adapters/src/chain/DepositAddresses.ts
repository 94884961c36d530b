/**
 * Per-payment deposit addresses: the CREATE2 address of a `DepositForwarder` under a chain's
 * `DepositFactory` (`packages/adapters/contracts/DepositFactory.sol`), its salt the keccak-256 of
 * the payment id. Computed without a transaction; distinct payment ids give distinct salts, hence
 * distinct addresses (a collision would be a keccak-256 collision). Nothing is deployed until the
 * executor sweeps: `DepositFactory.sweep(token, salts)` deploys each forwarder that is not there
 * yet and sends its whole balance to the factory's destination, in one transaction for many.
 *
 * @module
 */
import { type Address, encodeFunctionData, getContractAddress, type Hex, keccak256, stringToBytes } from "viem"
import { DepositFactory, DepositForwarder } from "./contracts.generated.ts"

/** The salt of a payment's forwarder: keccak-256 of its id (UTF-8). */
export const saltOf = (paymentId: string): Hex => keccak256(stringToBytes(paymentId))

const forwarderCodeHash = keccak256(DepositForwarder.bytecode)

/** The deposit address of `paymentId` under `factory` (EIP-55). */
export const depositAddress = (factory: Address, paymentId: string): Address =>
  getContractAddress({ opcode: "CREATE2", from: factory, salt: saltOf(paymentId), bytecodeHash: forwarderCodeHash })

/** The calldata of one sweep: deploy (where needed) and sweep the forwarders of `salts` in `token`. */
export const sweepCall = (token: Address, salts: ReadonlyArray<Hex>): Hex =>
  encodeFunctionData({ abi: DepositFactory.abi, functionName: "sweep", args: [token, [...salts]] })

