import { Context } from "effect"

/**
 * Which chains offer per-payment deposit addresses, and the address of a payment on each: computed
 * without a transaction (CREATE2 of a forwarder whose salt derives from the payment id), unique to
 * the payment.
 */
export class DepositChains extends Context.Service<DepositChains, {
  /** CAIP-2 chains with a deposit factory. */
  readonly chains: ReadonlyArray<string>
  /**
   * CAIP-2 chains whose deposit addresses are swept: those with a factory of either version (a
   * first-version one hands out no address any more, but the addresses it made are still swept).
   */
  readonly swept: ReadonlyArray<string>
  /** The deposit address (EIP-55) of `paymentId` on `chainId`; `undefined` where the chain offers none. */
  readonly addressOf: (chainId: string, paymentId: string) => string | undefined
}>()("@paygate/domain/DepositChains") {}
