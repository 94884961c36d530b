/**
 * Where the chain configuration comes from: named networks (`PAYGATE_NETWORKS`, presets with the
 * operator's RPC URLs and keys, checked against the chains at start: `NetworkChecks`) or the full
 * JSON of `PAYGATE_CHAINS` (any EVM chain and token, each declared a test network or a real one,
 * checked against the presets' chain ids). One or the other: both set is an error.
 *
 * @module
 */
import { type Config, Effect, Layer, Option } from "effect"
import * as Configuration from "../Configuration.ts"
import * as ChainConfig from "./ChainConfig.ts"
import { checkNetworks } from "./NetworkChecks.ts"
import { checkDeclarations, settingsFor } from "./NetworkPresets.ts"

/** Whether `PAYGATE_NETWORKS` or `PAYGATE_CHAINS` is set. */
export const isConfigured: Effect.Effect<boolean, Config.ConfigError> = Effect.gen(function*() {
  const networks = yield* Configuration.networks
  return Option.isSome(networks.names) || Option.isSome(yield* Configuration.chains)
})

/** The named networks of `PAYGATE_NETWORKS` and their chains, not checked against the chains yet. */
export const namedNetworks = (configured: Configuration.NetworksConfig, names: string) =>
  Effect.gen(function*() {
    const { networks, settings } = yield* settingsFor(configured, names)
    // Everything the operator gave was checked above; the decoder's message could repeat values (keys, URLs).
    const chains = yield* ChainConfig.decode(settings).pipe(
      Effect.mapError(() => new ChainConfig.ChainConfigError({ message: "PAYGATE_NETWORKS: the settings of the named networks are invalid." }))
    )
    return { networks, chains }
  })

/** The named networks of `PAYGATE_NETWORKS`, checked at start. */
const fromNetworks = (configured: Configuration.NetworksConfig, names: string) =>
  Effect.gen(function*() {
    const { networks, chains } = yield* namedNetworks(configured, names)
    yield* checkNetworks(chains, networks)
    return chains
  })

/** The chains of `PAYGATE_NETWORKS` or `PAYGATE_CHAINS`; fails when neither or both are set. */
export const layer: Layer.Layer<ChainConfig.ChainsConfig, ChainConfig.ChainConfigError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    const networks = yield* Configuration.networks
    const json = yield* Configuration.chains
    if (Option.isSome(networks.names) && Option.isSome(json)) {
      return yield* new ChainConfig.ChainConfigError({ message: `Set PAYGATE_NETWORKS or ${ChainConfig.envVar}, not both.` })
    }
    if (Option.isNone(networks.names)) return Layer.effect(ChainConfig.ChainsConfig, Effect.flatMap(ChainConfig.fromEnv, checkDeclarations))
    return Layer.effect(ChainConfig.ChainsConfig, fromNetworks(networks, networks.names.value))
  })
)

/** {@link layer} when either variable is set; otherwise no chain (said in the log). */
export const layerOrEmpty: Layer.Layer<ChainConfig.ChainsConfig, ChainConfig.ChainConfigError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    if (yield* isConfigured) return layer
    yield* Effect.logInfo(`Neither PAYGATE_NETWORKS nor ${ChainConfig.envVar} is set: no chain is configured; payments have no options.`)
    return ChainConfig.layerEmpty
  })
)
