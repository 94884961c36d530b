/**
 * The contracts an operator deploys on a named network of `PAYGATE_NETWORKS`, paid by the executor,
 * each answering the address and the variable to set (what the start-up checks and the preflight
 * expect there):
 *
 * - `npm run admin -- deposit-factory deploy --network <name>`: the `DepositFactoryV2`, owned by the
 *   executor (which sweeps) and sweeping to the collection address, for
 *   `PAYGATE_DEPOSIT_FACTORY_<NETWORK>`. A factory configured there already is named with the
 *   variable that keeps a first-version one swept (`PAYGATE_DEPOSIT_FACTORY_V1_<NETWORK>`);
 * - `npm run admin -- subscription-vault deploy --network <name>`: the `SubscriptionVault` over
 *   Permit2's canonical address, for `PAYGATE_SUBSCRIPTION_VAULT_<NETWORK>`;
 * - `npm run admin -- payment-escrow deploy --network <name>`: a `PaymentEscrow` (held payments), for
 *   `PAYGATE_PAYMENT_ESCROW_<NETWORK>`.
 *
 * @module
 */
import { Duration, Effect, Option, Redacted } from "effect"
import type { Address, Hex } from "viem"
import * as Configuration from "../Configuration.ts"
import { ChainConfigError, rpcEndpoints } from "./ChainConfig.ts"
import { namedNetworks } from "./ChainSource.ts"
import { deployDepositFactory, deployPaymentEscrow, deploySubscriptionVault } from "./Deploy.ts"
import { presets } from "./NetworkPresets.ts"
import { permit2Address } from "./Permit2.ts"
import { makeClient, rpc } from "./RpcCall.ts"

/** The named network `network` (it must be in `PAYGATE_NETWORKS`): its settings and how to deploy there from the executor's key. */
const namedDeployer = (network: string) =>
  Effect.gen(function*() {
    const configured = yield* Configuration.networks
    const listed = Option.getOrElse(configured.names, () => "")
    const names = listed.split(",").map((name) => name.trim().toLowerCase())
    if (!names.includes(network)) {
      return yield* new ChainConfigError({ message: `${network} is not in PAYGATE_NETWORKS (${listed || "unset"}): name the network to deploy on there, with its RPC.` })
    }
    const { chains } = yield* namedNetworks(configured, listed)
    const name = network as Configuration.NetworkName
    const preset = presets[name]
    const settings = chains.chains.get(`eip155:${preset.chainNumber}`)!
    // Named networks configure the executor by its key (the deployment's signer).
    const deployer = settings.executorPrivateKey
    if (deployer === undefined) return yield* new ChainConfigError({ message: `${network}: deploying needs the executor's key.` })
    const options = { rpcUrl: Redacted.value(settings.rpcUrl), chainId: preset.chainNumber, deployerPrivateKey: Redacted.value(deployer) as Hex }
    return { name, settings, options }
  })

/** Deploys the deposit factory on `network`; answers its address and the variable to set. */
export const deployFactory = (network: string) =>
  Effect.gen(function*() {
    const { name, options, settings } = yield* namedDeployer(network)
    const factory = yield* deployDepositFactory({ ...options, depositDestination: settings.collectionAddress as Address })
    const variable = Configuration.depositFactoryVariable(name)
    // The factory configured until now, when there is one, may be a first DepositFactory whose addresses must still be swept.
    const before = settings.depositFactory === undefined ? {} : {
      previousFactory: settings.depositFactory,
      previousVariable: Configuration.depositFactoryV1Variable(name)
    }
    return { network, depositFactory: factory, variable, ...before }
  })

/** Deploys a subscription vault on `network`, refused where Permit2 is not at its canonical address; answers its address and the variable to set. */
export const deployVault = (network: string) =>
  Effect.gen(function*() {
    const { name, options, settings } = yield* namedDeployer(network)
    const chainId = `eip155:${options.chainId}`
    // The vault only keeps Permit2's address: without Permit2 there, every charge through it would fail.
    const client = makeClient(rpcEndpoints(settings), { timeout: Duration.seconds(10) })
    const code = yield* rpc(chainId, "eth_getCode", () => client.getCode({ address: permit2Address })).pipe(
      Effect.mapError((error) => new ChainConfigError({ message: `${network}: Permit2's address could not be read (${error.message}).` }))
    )
    if (code === undefined || code === "0x") {
      return yield* new ChainConfigError({ message: `${network}: no Permit2 at its canonical address ${permit2Address}: a SubscriptionVault charges through it.` })
    }
    const vault = yield* deploySubscriptionVault(options)
    return { network, subscriptionVault: vault, variable: Configuration.subscriptionVaultVariable(name) }
  })

/** Deploys a payment escrow on `network`; answers its address and the variable to set. */
export const deployEscrow = (network: string) =>
  Effect.gen(function*() {
    const { name, options } = yield* namedDeployer(network)
    const escrow = yield* deployPaymentEscrow(options)
    return { network, paymentEscrow: escrow, variable: Configuration.paymentEscrowVariable(name) }
  })
