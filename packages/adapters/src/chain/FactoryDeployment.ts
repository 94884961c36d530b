/**
 * `npm run admin -- deposit-factory deploy --network <name>`: deploys the `DepositFactoryV2` of a
 * named network of `PAYGATE_NETWORKS`, owned by the executor (which sweeps) and sweeping to the
 * collection address, paid by the executor: what the start-up checks and the preflight expect of
 * `PAYGATE_DEPOSIT_FACTORY_<NETWORK>`. A factory configured there already is named with the
 * variable that keeps a first-version one swept (`PAYGATE_DEPOSIT_FACTORY_V1_<NETWORK>`).
 *
 * @module
 */
import { Effect, Option, Redacted } from "effect"
import type { Address, Hex } from "viem"
import * as Configuration from "../Configuration.ts"
import { ChainConfigError } from "./ChainConfig.ts"
import { namedNetworks } from "./ChainSource.ts"
import { deployDepositFactory } from "./Deploy.ts"
import { presets } from "./NetworkPresets.ts"

/** Deploys the factory on `network`; answers its address and the variable to set. */
export const deploy = (network: string) =>
  Effect.gen(function*() {
    const configured = yield* Configuration.networks
    const listed = Option.getOrElse(configured.names, () => "")
    const names = listed.split(",").map((name) => name.trim().toLowerCase())
    if (!names.includes(network)) {
      return yield* new ChainConfigError({ message: `${network} is not in PAYGATE_NETWORKS (${listed || "unset"}): name the network to deploy on there, with its RPC.` })
    }
    const { chains } = yield* namedNetworks(configured, listed)
    const preset = presets[network as Configuration.NetworkName]
    const settings = chains.chains.get(`eip155:${preset.chainNumber}`)!
    // Named networks configure the executor by its key (the deployment's signer).
    const deployer = settings.executorPrivateKey
    if (deployer === undefined) return yield* new ChainConfigError({ message: `${network}: deploying needs the executor's key.` })
    const factory = yield* deployDepositFactory({
      rpcUrl: Redacted.value(settings.rpcUrl),
      chainId: preset.chainNumber,
      deployerPrivateKey: Redacted.value(deployer) as Hex,
      depositDestination: settings.collectionAddress as Address
    })
    const variable = Configuration.depositFactoryVariable(network as Configuration.NetworkName)
    // The factory configured until now, when there is one, may be a first DepositFactory whose addresses must still be swept.
    const before = settings.depositFactory === undefined ? {} : {
      previousFactory: settings.depositFactory,
      previousVariable: Configuration.depositFactoryV1Variable(network as Configuration.NetworkName)
    }
    return { network, depositFactory: factory, variable, ...before }
  })
