/**
 * Start-up checks of named networks (see `NetworkPresets`), each failure one line naming the
 * network and what to fix, never a key or an RPC URL (provider URLs carry API keys):
 *
 * - the RPC answers and serves the network's chain id;
 * - a contract is at the preset's USDC address, with a consistent EIP-712 domain (read from the token,
 *   as confirms use it) and answers EIP-3009's `authorizationState`;
 * - the executor account has native currency for gas;
 * - a configured deposit factory (`PAYGATE_DEPOSIT_FACTORY_<NETWORK>`) is a `DepositFactoryV2` owned by
 *   the executor (which sweeps) and sweeping to the collection address; a first-version one
 *   (`PAYGATE_DEPOSIT_FACTORY_V1_<NETWORK>`), still swept, is owned and sweeps alike;
 * - a configured subscription vault (`PAYGATE_SUBSCRIPTION_VAULT_<NETWORK>`) is a contract over
 *   Permit2's canonical address;
 * - a configured payment escrow (`PAYGATE_PAYMENT_ESCROW_<NETWORK>`) is a contract that answers the
 *   escrow's `payments`.
 *
 * @module
 */
import { Duration, Effect } from "effect"
import type { Address } from "viem"
import * as Configuration from "../Configuration.ts"
import { type Chains, ChainConfigError, executorAddress, rpcEndpoints } from "./ChainConfig.ts"
import { DepositFactory, DepositFactoryV2, PaymentEscrow, SubscriptionVault } from "./contracts.generated.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import { presets } from "./NetworkPresets.ts"
import { permit2Address } from "./Permit2.ts"
import { makeClient, rpc } from "./RpcCall.ts"
import * as TokenDomains from "./TokenDomains.ts"

const zeroAddress = "0x0000000000000000000000000000000000000000"
const zeroNonce = `0x${"00".repeat(32)}` as const

/** What the checks of one named network share: its settings, an RPC client, and how to fail. */
const networkContext = (chains: Chains, network: Configuration.NetworkName) => {
  const preset = presets[network]
  const chainId = `eip155:${preset.chainNumber}`
  const settings = chains.chains.get(chainId)!
  const fail = (problem: string) => Effect.fail(new ChainConfigError({ message: `${network}: ${problem}` }))
  const client = makeClient(rpcEndpoints(settings), { timeout: Duration.seconds(10) })
  const executor = executorAddress(settings)
  return { preset, chainId, settings, fail, client, executor }
}

/**
 * The RPC serves the network's chain id, and USDC is at the preset's address with a usable EIP-712
 * domain and EIP-3009; answers the domain, as confirms use it.
 */
export const checkToken = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const { chainId, client, fail, preset } = networkContext(chains, network)
    const variable = Configuration.rpcVariable(network)
    const served = yield* rpc(chainId, "eth_chainId", () => client.getChainId()).pipe(
      Effect.catchTag("ChainRpcError", (error) => fail(`${variable} does not answer (${error.message}).`))
    )
    if (served !== preset.chainNumber) return yield* fail(`${variable} serves chain id ${served}, not ${preset.chainNumber}.`)
    const token = preset.usdc as Address
    const code = yield* rpc(chainId, "eth_getCode", () => client.getCode({ address: token })).pipe(
      Effect.catchTag("ChainRpcError", (error) => fail(`the token at ${token} could not be read (${error.message}).`))
    )
    if (code === undefined || code === "0x") return yield* fail(`no contract at USDC's address ${token}: is ${variable} an RPC of ${preset.networkName}?`)
    const domains = yield* TokenDomains.make({ chainId, client })
    const domain = yield* domains.get(token).pipe(
      Effect.catchTags({
        TokenDomainError: (error) => fail(`the token at ${token} has no usable EIP-712 domain: ${error.message}`),
        ChainRpcError: (error) => fail(`the token at ${token} could not be read (${error.message}).`)
      })
    )
    yield* rpc(chainId, "authorizationState", () =>
      client.readContract({ address: token, abi: eip3009TokenAbi, functionName: "authorizationState", args: [zeroAddress, zeroNonce] })).pipe(
        Effect.catchTag("ChainRpcError", () => fail(`the token at ${token} does not implement EIP-3009 (authorizationState).`))
      )
    return { chainId, token, domain }
  })

/** The executor has native currency for gas; answers its address and balance (wei). */
export const checkExecutor = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const { chainId, client, executor, fail } = networkContext(chains, network)
    const balance = yield* rpc(chainId, "eth_getBalance", () => client.getBalance({ address: executor })).pipe(
      Effect.catchTag("ChainRpcError", (error) => fail(`the executor's balance could not be read (${error.message}).`))
    )
    if (balance === 0n) return yield* fail(`the executor ${executor} has no native currency for gas: fund it before starting.`)
    return { executor, balance }
  })

/** The deposit factory `factory` (of either version) is owned by the executor and sweeps to the collection address. */
const checkOwned = (chains: Chains, network: Configuration.NetworkName, factory: Address, factoryVariable: string) =>
  Effect.gen(function*() {
    const { chainId, client, executor, fail, settings } = networkContext(chains, network)
    const read = (functionName: "owner" | "destination") =>
      rpc(chainId, functionName, () => client.readContract({ address: factory, abi: DepositFactory.abi, functionName })).pipe(
        Effect.catchTag("ChainRpcError", () => fail(`${factoryVariable}: ${factory} is not a DepositFactory (its ${functionName} could not be read).`))
      )
    const owner = yield* read("owner")
    if (!sameAddress(owner, executor)) return yield* fail(`${factoryVariable}: the factory is owned by ${owner}, not by the executor ${executor}.`)
    const destination = yield* read("destination")
    if (!sameAddress(destination, settings.collectionAddress)) {
      return yield* fail(`${factoryVariable}: the factory sweeps to ${destination}, not to the collection address ${settings.collectionAddress}.`)
    }
  })

/**
 * The configured deposit factory is a `DepositFactoryV2` owned by the executor and sweeping to the
 * collection address (a first-version one too, when configured); answers it, `undefined` when none
 * is configured.
 */
export const checkFactory = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const { chainId, client, fail, settings } = networkContext(chains, network)
    const factory = settings.depositFactory as Address | undefined
    if (settings.depositFactoryV1 !== undefined) {
      yield* checkOwned(chains, network, settings.depositFactoryV1 as Address, Configuration.depositFactoryV1Variable(network))
    }
    if (factory === undefined) return undefined
    const factoryVariable = Configuration.depositFactoryVariable(network)
    yield* checkOwned(chains, network, factory, factoryVariable)
    // A first-version factory named here would hand out addresses it cannot sweep the coin from, and
    // other addresses than those it handed out before: it must move to the V1 variable.
    const version = yield* rpc(chainId, "version", () => client.readContract({ address: factory, abi: DepositFactoryV2.abi, functionName: "version" })).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    if (version !== 2n) {
      return yield* fail(
        `${factoryVariable}: ${factory} is not a DepositFactoryV2 (a first DepositFactory answers no version): deploy one ` +
          `(npm run admin -- deposit-factory deploy --network ${network}), set it here and move this address to ${Configuration.depositFactoryV1Variable(network)}.`
      )
    }
    return factory
  })

/**
 * The configured subscription vault has code and charges through Permit2's canonical address (a
 * vault over another address would have payers sign allowances no Permit2 honours); answers it,
 * `undefined` when none is configured.
 */
export const checkVault = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const { fail, settings } = networkContext(chains, network)
    const vault = settings.subscriptionVault as Address | undefined
    if (vault === undefined) return undefined
    const variable = Configuration.subscriptionVaultVariable(network)
    const permit2 = yield* configuredContract(chains, network, vault, variable, "SubscriptionVault", "permit2", (client) =>
      client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "permit2" }))
    if (!sameAddress(permit2, permit2Address)) {
      return yield* fail(`${variable}: the vault charges through ${permit2}, not Permit2's canonical address ${permit2Address}.`)
    }
    return vault
  })

/**
 * A contract is at `address`, configured by `variable`, and it answers `read` (its `functionName`) as
 * a `contract` would; answers what it read.
 */
const configuredContract = <A>(
  chains: Chains,
  network: Configuration.NetworkName,
  address: Address,
  variable: string,
  contract: string,
  functionName: string,
  read: (client: ReturnType<typeof networkContext>["client"]) => Promise<A>
) =>
  Effect.gen(function*() {
    const { chainId, client, fail } = networkContext(chains, network)
    const code = yield* rpc(chainId, "eth_getCode", () => client.getCode({ address })).pipe(
      Effect.catchTag("ChainRpcError", (error) => fail(`${variable}: ${address} could not be read (${error.message}).`))
    )
    if (code === undefined || code === "0x") return yield* fail(`${variable}: no contract at ${address}.`)
    return yield* rpc(chainId, functionName, () => read(client)).pipe(
      Effect.catchTag("ChainRpcError", () => fail(`${variable}: ${address} is not a ${contract} (its ${functionName} could not be read).`))
    )
  })

/**
 * The configured payment escrow has code and answers the escrow's `payments` (another contract there
 * would take no authorization); answers it, `undefined` when none is configured.
 */
export const checkEscrow = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const escrow = networkContext(chains, network).settings.paymentEscrow as Address | undefined
    if (escrow === undefined) return undefined
    const variable = Configuration.paymentEscrowVariable(network)
    yield* configuredContract(chains, network, escrow, variable, "PaymentEscrow", "payments", (client) =>
      client.readContract({ address: escrow, abi: PaymentEscrow.abi, functionName: "payments", args: [zeroNonce] }))
    return escrow
  })

/** Checks one named network; see the module documentation. */
const checkNetwork = (chains: Chains, network: Configuration.NetworkName) =>
  Effect.gen(function*() {
    const { chainId, token, domain } = yield* checkToken(chains, network)
    const { executor } = yield* checkExecutor(chains, network)
    const factory = yield* checkFactory(chains, network)
    const vault = yield* checkVault(chains, network)
    const escrow = yield* checkEscrow(chains, network)
    yield* Effect.logInfo(
      `${network} (${chainId}): USDC ${token}, EIP-712 domain "${domain.name}" version "${domain.version}", executor ${executor}` +
        (factory === undefined ? "" : `, deposit factory ${factory}`) +
        (vault === undefined ? "" : `, subscription vault ${vault}`) +
        (escrow === undefined ? "" : `, payment escrow ${escrow}`)
    )
  })

/** Checks every named network, all at once; fails with the first problem found. */
export const checkNetworks = (chains: Chains, networks: ReadonlyArray<Configuration.NetworkName>): Effect.Effect<void, ChainConfigError> =>
  Effect.forEach(networks, (network) => checkNetwork(chains, network), { concurrency: "unbounded", discard: true })
