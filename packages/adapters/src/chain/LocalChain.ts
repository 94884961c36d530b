/**
 * A complete local chain for development and tests: an anvil node (fresh, or kept across restarts
 * with `stateFile`), the test contracts deployed on it once (TUSDC and TEURC minted to the ten default accounts), and the matching chain configuration: executor
 * anvil #0, collection address anvil #9 (with its key, so payouts are sent from it), TUSDC accepted
 * as an EIP-3009 token pegged to USD, TEURC as one pegged to EUR; with `usdt`, TUSDT (USDT-style,
 * minted like TUSDC) pulled through Permit2 at its canonical address; and, with `native`, the chain's
 * ether priced in USD by the test price feed. A SubscriptionVault over Permit2 takes subscriptions, and a
 * PaymentEscrow held payments.
 *
 * ```ts
 * ViemChainGateway.layer.pipe(
 *   Layer.provideMerge(LocalChain.layer()),
 *   Layer.provide(SignatureRecovery.layerWorkers())
 * )
 * ```
 *
 * @module
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { type Address, getAddress } from "viem"
import * as Anvil from "./Anvil.ts"
import { anvilAccount } from "./AnvilAccounts.ts"
import * as ChainConfig from "./ChainConfig.ts"
import { DepositFactoryV2 } from "./contracts.generated.ts"
import {
  DeployError,
  deployDepositFactory,
  deployPaymentEscrow,
  deploySubscriptionVault,
  deployTestContracts,
  deployTestEurc,
  type TestContracts
} from "./Deploy.ts"
import { permit2Address } from "./Permit2.ts"
import { deployPermit2Token } from "./Permit2Deploy.ts"
import { makeClient, rpc } from "./RpcCall.ts"

/** Options of {@link layer}. */
export interface LocalChainOptions extends Anvil.AnvilOptions {
  /** Confirmations a transfer needs; default 1. */
  readonly requiredConfirmations?: number | undefined
  /** Accept TUSDT (through Permit2) beside TUSDC; default false. */
  readonly usdt?: boolean | undefined
  /** Accept the euro test token TEURC (EUR payments); default true. */
  readonly eur?: boolean | undefined
  /** Accept the chain's ether too (TETH, priced by the test feed); default false. */
  readonly native?: boolean | undefined
}

/** Which tokens besides TUSDC a local chain's configuration accepts. */
export interface LocalAssets {
  readonly usdt?: boolean | undefined
  readonly eur?: boolean | undefined
  readonly native?: boolean | undefined
}

const TestContractsJson = Schema.Struct({
  usdc: Schema.String,
  priceFeed: Schema.String,
  // Absent from deployments recorded before deposit addresses, or the euro token, existed.
  depositFactory: Schema.optionalKey(Schema.String),
  // A first-version factory a kept chain had before the coin could be swept: its addresses are still swept.
  depositFactoryV1: Schema.optionalKey(Schema.String),
  // Absent from deployments recorded before Permit2 payments existed.
  usdt: Schema.optionalKey(Schema.String),
  eurc: Schema.optionalKey(Schema.String),
  // Absent from deployments recorded before subscriptions existed.
  subscriptionVault: Schema.optionalKey(Schema.String),
  // Absent from deployments recorded before held payments existed.
  paymentEscrow: Schema.optionalKey(Schema.String),
  deployer: Schema.String
})

/** The test contracts of a local chain: those of `Deploy.ts`, TestUsdt with Permit2 (`Permit2Deploy.ts`), a SubscriptionVault and a PaymentEscrow. */
export type LocalContracts = TestContracts & {
  /** TestUsdt ("Test Tether USD", TUSDT, 6 decimals, no EIP-3009: paid through Permit2). */
  readonly usdt: Address
  /** The SubscriptionVault over Permit2's canonical address (the chain's `subscriptionVault`). */
  readonly subscriptionVault: Address
  /** The PaymentEscrow (the chain's `paymentEscrow`). */
  readonly paymentEscrow: Address
  /** The first `DepositFactory` of a chain kept from before `DepositFactoryV2`. */
  readonly depositFactoryV1?: Address
}

/** Every test contract on a fresh chain. */
const deployAll = (node: Anvil.AnvilNode) =>
  Effect.gen(function*() {
    const options = { rpcUrl: node.rpcUrl, chainId: node.chainId }
    const contracts = yield* deployTestContracts(options)
    const usdt = yield* deployPermit2Token(options)
    // One after the other: each deployer keeps its own nonces, so two at once may sign the same nonce, and
    // the node then replaces one deployment with the other.
    const subscriptionVault = yield* deploySubscriptionVault(options)
    const paymentEscrow = yield* deployPaymentEscrow(options)
    return { ...contracts, usdt, subscriptionVault, paymentEscrow } satisfies LocalContracts
  })

/**
 * The test contracts of a kept chain (`stateFile`): the deployment recorded beside the state when
 * its contracts are still on the chain, else a new deployment, recorded. A state written less than
 * a second before a kill may lack a deployment that was recorded: the code check catches it.
 */
const keptContracts = (node: Anvil.AnvilNode, stateFile: string) =>
  Effect.gen(function*() {
    const record = join(dirname(stateFile), "deployment.json")
    const recorded = existsSync(record)
      ? yield* Effect.option(Schema.decodeUnknownEffect(Schema.fromJsonString(TestContractsJson))(readFileSync(record, "utf8")))
      : Option.none()
    if (Option.isSome(recorded)) {
      const client = makeClient(Redacted.make(node.rpcUrl))
      const { usdc, priceFeed, depositFactory, depositFactoryV1, usdt, eurc, subscriptionVault, paymentEscrow, deployer } = recorded.value
      const hasCode = (address: string | undefined) =>
        address === undefined
          ? Effect.succeed(false)
          : rpc(`eip155:${node.chainId}`, "eth_getCode", () => client.getCode({ address: address as Address })).pipe(
            Effect.map((code) => code !== undefined && code !== "0x"),
            Effect.mapError((error) => new DeployError({ message: `reading the kept chain: ${error.message}` }))
          )
      if ((yield* hasCode(usdc)) && (yield* hasCode(priceFeed))) {
        // A chain kept from before deposit addresses gets its factory now; its token and payments stay. One
        // kept from before the second version gets that, and its first factory is still swept.
        const version2 = (address: string | undefined) =>
          address === undefined ? Effect.succeed(false) : rpc(`eip155:${node.chainId}`, "eth_call", () =>
            client.readContract({ address: address as Address, abi: DepositFactoryV2.abi, functionName: "version" })).pipe(
              Effect.map((version) => version === 2n),
              Effect.orElseSucceed(() => false)
            )
        const current = yield* version2(depositFactory)
        const factory = current
          ? getAddress(depositFactory!)
          : yield* deployDepositFactory({ rpcUrl: node.rpcUrl, chainId: node.chainId })
        const first = !current && (yield* hasCode(depositFactory)) ? getAddress(depositFactory!) : depositFactoryV1 === undefined ? undefined : getAddress(depositFactoryV1)
        // Likewise TestUsdt with Permit2, the euro token, the subscription vault and the escrow, for a chain kept from before they existed.
        const options = { rpcUrl: node.rpcUrl, chainId: node.chainId }
        const keptOr = (address: string | undefined, deploy: Effect.Effect<Address, DeployError>) =>
          Effect.flatMap(hasCode(address), (has) => (has ? Effect.succeed(getAddress(address!)) : deploy))
        const usdtNow = (yield* hasCode(permit2Address)) ? yield* keptOr(usdt, deployPermit2Token(options)) : yield* deployPermit2Token(options)
        const euro = yield* keptOr(eurc, deployTestEurc(options))
        const vault = yield* keptOr(subscriptionVault, deploySubscriptionVault(options))
        const escrow = yield* keptOr(paymentEscrow, deployPaymentEscrow(options))
        const kept = {
          usdc: getAddress(usdc),
          eurc: euro,
          priceFeed: getAddress(priceFeed),
          depositFactory: factory,
          ...(first === undefined ? {} : { depositFactoryV1: first }),
          usdt: usdtNow,
          subscriptionVault: vault,
          paymentEscrow: escrow,
          deployer: getAddress(deployer)
        }
        if (factory !== depositFactory || usdtNow !== usdt || euro !== eurc || vault !== subscriptionVault || escrow !== paymentEscrow) {
          writeFileSync(record, JSON.stringify(kept))
        }
        return kept satisfies LocalContracts
      }
    }
    const contracts = yield* deployAll(node)
    writeFileSync(record, JSON.stringify(contracts))
    return contracts
  })

/** What runs locally. */
export interface LocalChainInfo {
  readonly node: Anvil.AnvilNode
  readonly contracts: LocalContracts
  /** CAIP-2, e.g. `eip155:31337`. */
  readonly chainId: string
  /** CAIP-19 of TUSDC. */
  readonly usdcAssetId: string
  /** CAIP-19 of TUSDT (paid through Permit2). */
  readonly usdtAssetId: string
  /** CAIP-19 of TEURC, the euro test token. */
  readonly eurcAssetId: string
  /** CAIP-19 of the chain's ether (`slip44:60`), accepted only with the `native` option. */
  readonly nativeAssetId: string
  readonly collectionAddress: Address
  readonly executorAddress: Address
}

/** The local chain of the surrounding layer. */
export class LocalChain extends Context.Service<LocalChain, LocalChainInfo>()("@paygate/adapters/chain/LocalChain") {}

/** A 1×1 blue dot, so that the local configuration needs no network for its icon. */
const tusdcIcon = "data:image/svg+xml;base64," +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1" fill="#2775ca"/></svg>')
    .toString("base64")

/** What a local chain is before its asset ids are derived. */
type Deployed = Omit<LocalChainInfo, "usdcAssetId" | "usdtAssetId" | "eurcAssetId" | "nativeAssetId" | "chainId">

/** A 1×1 dot for TUSDT, TEURC and TETH. */
const dotIcon = (colour: string) =>
  "data:image/svg+xml;base64," +
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1" fill="${colour}"/></svg>`).toString("base64")

/** TUSDT: a USD-pegged token without EIP-3009, pulled through Permit2. */
const usdtSettings = (info: Deployed) => ({
  assetId: `eip155:${info.node.chainId}/erc20:${info.contracts.usdt}`,
  decimals: 6,
  symbol: "TUSDT",
  name: "Test Tether USD",
  iconUrl: dotIcon("#26a17b"),
  networkName: "Anvil (local)",
  eip3009: false,
  permit2: true,
  pricing: { kind: "peg", currency: "USD" }
})
/** TEURC: EUR payments are payable out of the box with a euro-pegged EIP-3009 token, like EURC. */
const eurcSettings = (info: Deployed) => ({
  assetId: `eip155:${info.node.chainId}/erc20:${info.contracts.eurc}`,
  decimals: 6,
  symbol: "TEURC",
  name: "Test Euro Coin",
  iconUrl: dotIcon("#1f4fa3"),
  networkName: "Anvil (local)",
  eip3009: true,
  pricing: { kind: "peg", currency: "EUR" }
})

/** The chain's ether, priced in USD by the test feed: offered only when asked for (`native`). */
const nativeSettings = (info: Deployed) => ({
  assetId: `eip155:${info.node.chainId}/slip44:60`,
  decimals: 18,
  symbol: "TETH",
  name: "Test Ether",
  iconUrl: dotIcon("#627eea"),
  networkName: "Anvil (local)",
  eip3009: false,
  pricing: { kind: "priceFeed", address: info.contracts.priceFeed, currency: "USD" }
})

/**
 * The configuration (in its JSON form) of a local chain: TUSDC, and TUSDT, TEURC or the chain's ether when
 * `extra` asks for them (none by default here; `layer` adds TEURC unless told otherwise).
 */
export const settingsFor = (
  info: Deployed,
  requiredConfirmations: number,
  extra: LocalAssets = {}
) => ({
  chains: [{
    chainId: `eip155:${info.node.chainId}`,
    // A local chain never holds real money: a test network, for sandbox payments.
    testnet: true,
    rpcUrl: info.node.rpcUrl,
    requiredConfirmations,
    executorPrivateKey: anvilAccount(0).privateKey,
    collectionAddress: info.collectionAddress,
    collectionPrivateKey: anvilAccount(9).privateKey,
    depositFactory: info.contracts.depositFactory,
    subscriptionVault: info.contracts.subscriptionVault,
    paymentEscrow: info.contracts.paymentEscrow,
    ...(info.contracts.depositFactoryV1 === undefined ? {} : { depositFactoryV1: info.contracts.depositFactoryV1 })
  }],
  assets: [{
    assetId: `eip155:${info.node.chainId}/erc20:${info.contracts.usdc}`,
    decimals: 6,
    symbol: "TUSDC",
    name: "Test USD Coin",
    iconUrl: tusdcIcon,
    networkName: "Anvil (local)",
    eip3009: true,
    pricing: { kind: "peg", currency: "USD" }
  }, ...(extra.usdt === true ? [usdtSettings(info)] : []), ...(extra.eur === true ? [eurcSettings(info)] : []),
    ...(extra.native === true ? [nativeSettings(info)] : [])]
})

/** Starts anvil, deploys, and provides the node, the deployment and the chain configuration. */
export const layer = (
  options: LocalChainOptions = {}
): Layer.Layer<LocalChain | ChainConfig.ChainsConfig | Anvil.Anvil, Anvil.AnvilError | DeployError | ChainConfig.ChainConfigError> =>
  Layer.effectContext(
    Effect.gen(function*() {
      if (options.stateFile !== undefined) mkdirSync(dirname(options.stateFile), { recursive: true })
      const node = yield* Anvil.start(options)
      const contracts = options.stateFile === undefined
        ? yield* deployAll(node)
        : yield* keptContracts(node, options.stateFile)
      const base = {
        node,
        contracts,
        collectionAddress: anvilAccount(9).address,
        executorAddress: anvilAccount(0).address
      }
      const chains = yield* ChainConfig.decode(
        settingsFor(base, options.requiredConfirmations ?? 1, { usdt: options.usdt ?? false, eur: options.eur ?? true, native: options.native ?? false })
      )
      const info: LocalChainInfo = {
        ...base,
        chainId: `eip155:${node.chainId}`,
        usdcAssetId: `eip155:${node.chainId}/erc20:${contracts.usdc}`,
        usdtAssetId: `eip155:${node.chainId}/erc20:${contracts.usdt}`,
        eurcAssetId: `eip155:${node.chainId}/erc20:${contracts.eurc}`,
        nativeAssetId: `eip155:${node.chainId}/slip44:60`
      }
      return Context.make(LocalChain, info).pipe(
        Context.add(ChainConfig.ChainsConfig, chains),
        Context.add(Anvil.Anvil, node)
      )
    })
  )
