/**
 * Opening the ledger of the configured chains (`npm run admin -- ledger open`): per chain,
 * `SqlLedgerOpening.openChain` at the block the chain watcher has read up to. The chains
 * (`PAYGATE_NETWORKS` or `PAYGATE_CHAINS`) are read only when an opening runs, so the operator's
 * other commands work without them.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ChainsConfig } from "./chain/ChainConfig.ts"
import * as ChainNetworkModes from "./chain/ChainNetworkModes.ts"
import * as ChainSource from "./chain/ChainSource.ts"
import { watchedChains } from "./chain/TransferLogs.ts"
import * as SqlDepositStore from "./SqlDepositStore.ts"
import * as SqlLedgerBalances from "./SqlLedgerBalances.ts"
import { type OpeningLine, openChain } from "./SqlLedgerOpening.ts"

/** Why an opening did not run: the chain is not configured, the watcher has not read it, or it could not be read. */
export class LedgerOpeningFailed extends Schema.TaggedError<LedgerOpeningFailed>()("LedgerOpeningFailed", {
  message: Schema.String
}) {}

const chainServices = Layer.mergeAll(SqlLedgerBalances.layer, SqlDepositStore.layer, ChainNetworkModes.layer).pipe(
  Layer.provideMerge(ChainSource.layer)
)

// The chain `chainId` (every configured chain when undefined), each opened in turn.
const openChains = (chainId: string | undefined) =>
  Effect.gen(function*() {
    const chains = watchedChains(yield* ChainsConfig)
    const chosen = chains.filter((chain) => chainId === undefined || chain.chainId === chainId)
    if (chosen.length === 0) {
      return yield* new LedgerOpeningFailed({
        message: chainId === undefined ? "No chain is configured." : `${chainId} is not a configured chain (${chains.map((c) => c.chainId).join(", ") || "none"}).`
      })
    }
    return (yield* Effect.forEach(chosen, openChain)).flat()
  })

/** Opens the ledger of the chain `chainId`, or of every configured chain; answers one line per address and token. */
export class LedgerOpener extends Context.Service<LedgerOpener, {
  readonly open: (chainId: string | undefined) => Effect.Effect<ReadonlyArray<OpeningLine>, LedgerOpeningFailed>
}>()("@paygate/adapters/LedgerOpener") {
  /** Over the `SqlClient` in context. */
  static readonly layer: Layer.Layer<LedgerOpener, never, SqlClient.SqlClient> = Layer.effect(
    LedgerOpener,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return LedgerOpener.of({
        open: (chainId) =>
          openChains(chainId).pipe(
            Effect.provide(chainServices),
            Effect.provideService(SqlClient.SqlClient, sql),
            Effect.mapError((error) => error instanceof LedgerOpeningFailed ? error : new LedgerOpeningFailed({ message: error.message }))
          )
      })
    })
  )
}
