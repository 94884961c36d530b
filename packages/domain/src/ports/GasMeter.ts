import { Context, Effect, Option } from "effect"
import type { GasPaid } from "../gas/GasPaid.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"

/**
 * What the service paid in gas for a mined transaction, read from its receipt. Only a signer of the
 * service (the executor, a collection address) pays: a transaction someone else sent is none.
 */
export class GasMeter extends Context.Service<GasMeter, {
  /** Gas paid for `txHash` on the chain of `asset` (CAIP-19); none when the service did not send it or it is not mined. */
  readonly paid: (asset: string, txHash: string) => Effect.Effect<Option.Option<GasPaid>, ChainUnavailable>
}>()("@paygate/domain/GasMeter") {}

/** Reads the gas of a transaction: `undefined` when the service did not pay any (or has no chains to read). */
export type GasReader = (asset: string, txHash: string) => Effect.Effect<GasPaid | undefined, ChainUnavailable>

/**
 * The reader over the meter in context, taken when a use case is built (a service without chains
 * has none: nothing to record); a chain that does not answer fails, and the caller observes again later.
 */
export const gasReader: Effect.Effect<GasReader> = Effect.map(Effect.serviceOption(GasMeter), (meter): GasReader =>
  Option.isNone(meter)
    ? () => Effect.succeed(undefined)
    : (asset, txHash) => Effect.map(meter.value.paid(asset, txHash), Option.getOrUndefined))

/** The gas of a transfer the chain reported mined (whatever it did: any included transaction cost gas); `undefined` while it is not. */
export const gasIfMined = (gasOf: GasReader, outcome: string, asset: string, txHash: string) =>
  outcome === "succeeded" || outcome === "failed" || outcome === "reverted" ? gasOf(asset, txHash) : Effect.succeed(undefined)
