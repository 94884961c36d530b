/**
 * The chain ports of a worker process, composed from these adapters (the composition root adds
 * the use cases over them).
 *
 * @module
 */
import { Layer } from "effect"
import * as Chain from "./chain/index.ts"
import * as SqlPayoutLimits from "./SqlPayoutLimits.ts"
import * as SqlPayoutWork from "./SqlPayoutWork.ts"

/**
 * The ports of the payout jobs (`@paygate/worker` `Payouts.ts`) beyond persistence: the SQL payout
 * queue, the payout limits, the chains' modes (no payout on a network of the other mode), the viem
 * `Payouts` over the configured chains (one instance per worker: it holds each collection key's
 * nonce sequence) and the `GasMeter` (what the service's own transactions cost, recorded when they
 * are seen mined); given the `SqlClient` and the chain configuration.
 */
export const payoutPorts = Layer.mergeAll(SqlPayoutWork.layer, SqlPayoutLimits.layer, Chain.ViemPayouts.layer, Chain.ChainNetworkModes.layer, Chain.ViemGasMeter.layer)

/**
 * A worker process's chain gateway over `PAYGATE_NETWORKS` or `PAYGATE_CHAINS` (none when unset): the
 * executor's and the payouts' chains. A worker never verifies signatures, so recovery runs inline.
 */
export const chainGateway = Chain.ViemChainGateway.layer.pipe(
  Layer.provideMerge(Chain.ChainSource.layerOrEmpty),
  Layer.provide(Chain.SignatureRecovery.layerInline)
)
