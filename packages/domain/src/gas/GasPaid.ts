import { Schema } from "effect"

/**
 * Gas the service paid for one of its own mined transactions, as its receipt says: `gasUsed` ×
 * `effectiveGasPrice` wei of the chain's native asset (`asset`, CAIP-19), paid by `payer` (the
 * signer's lower-case address). A reverted transaction pays gas too.
 */
export class GasPaid extends Schema.Class<GasPaid>("paygate/GasPaid")({
  /** CAIP-2 chain id. */
  chainId: Schema.String,
  /** The chain's native asset, CAIP-19. */
  asset: Schema.String,
  /** Lower-case 0x-prefixed transaction hash. */
  txHash: Schema.String,
  /** Lower-case address of the service's signer that sent it. */
  payer: Schema.String,
  gasUsed: Schema.BigInt,
  effectiveGasPrice: Schema.BigInt
}) {
  /** What it cost, in wei. */
  get amount(): bigint {
    return this.gasUsed * this.effectiveGasPrice
  }
}

/** What a transaction of the service was sent for. */
export type GasOperation = "payment" | "settlement" | "refund" | "sweep"
