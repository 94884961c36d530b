/**
 * Configuration of the chains the service collects on and the tokens it accepts there, validated as
 * a whole when the service starts: a wrong configuration stops start-up with every problem listed
 * and its path, e.g. `assets[1].assetId: chain eip155:8453 is not configured under "chains"`.
 *
 * In JSON (e.g. the `PAYGATE_CHAINS` environment variable of {@link layerFromEnv}):
 *
 * ```json
 * {
 *   "chains": [{
 *     "chainId": "eip155:8453",
 *     "testnet": false,
 *     "rpcUrl": "https://base.example/rpc",
 *     "requiredConfirmations": 3,
 *     "executorPrivateKey": "0x…32 bytes…",
 *     "collectionAddress": "0x…",
 *     "collectionPrivateKey": "0x…32 bytes… (optional: settlements and refunds)",
 *     "explorerUrl": "https://basescan.org (optional: the checkout links transactions to {explorerUrl}/tx/{hash})",
 *     "depositFactory": "0x… (optional: a DepositFactoryV2 owned by the executor; without it, no deposit addresses)",
 *     "depositFactoryV1": "0x… (optional: the first DepositFactory, whose addresses are still swept)",
 *     "subscriptionVault": "0x… (optional: a SubscriptionVault over Permit2; without it, no subscriptions)",
 *     "paymentEscrow": "0x… (optional: a PaymentEscrow; without it, no held payments)"
 *   }],
 *   "assets": [{
 *     "assetId": "eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
 *     "decimals": 6, "symbol": "USDC", "name": "USD Coin", "networkName": "Base",
 *     "iconUrl": "https://example.com/usdc.svg", "eip3009": true,
 *     "networkIconUrl": "https://example.com/base.svg", "etaSeconds": 5,
 *     "pricing": { "kind": "peg", "currency": "USD" }
 *   }, {
 *     "assetId": "eip155:8453/erc20:0x4200000000000000000000000000000000000006", "…": "…",
 *     "pricing": { "kind": "priceFeed", "address": "0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70", "currency": "USD",
 *                  "maxAgeSeconds": 3600 }
 *   }]
 * }
 * ```
 *
 * Every chain says whether it is a test network (`"testnet": true`: sandbox payments only) or a real
 * one (`false`: live payments only); a chain that does not say is refused, in one line.
 *
 * `rpcUrl`, `executorPrivateKey` and `collectionPrivateKey` decode to `Redacted` values (RPC URLs
 * often embed API keys). `collectionPrivateKey`, the key of `collectionAddress`, lets the worker pay
 * out from it (settlements to merchants, refunds to payers); without it that chain's payouts wait.
 *
 * @module
 */
import { Caip, type Mode, Money } from "@paygate/domain"
import { Config, Context, Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import type { Address, Hex } from "viem"
import { privateKeyToAddress } from "viem/accounts"
import * as Configuration from "../Configuration.ts"
import { EvmAddress, sameAddress } from "./EvmAddress.ts"
import { GasSettings } from "./GasPolicy.ts"
import { isNativeAssetId, nativeAssetProblems, nativeToken } from "./NativeAsset.ts"
import { PayoutLimitSettings, resolveLimits, type TokenLimits } from "./PayoutLimitSettings.ts"
import { SignerSettings } from "./TransactionSigner.ts"

/** secp256k1 group order: a private key is an integer in [1, n - 1]. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const PrivateKeyHex = Schema.String.pipe(
  Schema.refine(
    (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text) && BigInt(text) > 0n && BigInt(text) < SECP256K1_N,
    // The message never repeats the value: it is a secret.
    { expected: "a secp256k1 private key: 0x followed by 64 hex digits" }
  )
)

const HttpUrl = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (text: string) => {
        const url = URL.parse(text)
        return url !== null && (url.protocol === "http:" || url.protocol === "https:")
      },
      { expected: "an http(s) URL" }
    )
  )
)

const IconUrl = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (text: string) => {
        const url = URL.parse(text)
        return url !== null && (url.protocol === "https:" || url.protocol === "http:" || text.startsWith("data:image/"))
      },
      { expected: "an http(s) URL or a data:image/ URL" }
    )
  )
)

const Label = (maxLength: number) =>
  Schema.String.pipe(Schema.check(Schema.isTrimmed(), Schema.isNonEmpty(), Schema.isMaxLength(maxLength)))

const Eip155ChainId = Caip.ChainId.pipe(
  Schema.check(
    Schema.makeFilter((chainId: string) => chainId.startsWith("eip155:") || "only eip155 (EVM) chains are supported")
  )
)

const TokenAssetId = Caip.AssetId.pipe(
  Schema.check(
    Schema.makeFilter(
      (assetId: string) =>
        /^eip155:[0-9]+\/erc20:0x[0-9a-fA-F]{40}$/.test(assetId) || isNativeAssetId(assetId) ||
        "only erc20 tokens and the native asset (slip44) on eip155 chains are supported"
    )
  )
)

/** One chain: where to reach it, how final a transfer must be, who pays gas and where payments go. */
export const ChainSettings = Schema.Struct({
  /** CAIP-2 id of an EVM chain, e.g. `eip155:8453`. */
  chainId: Eip155ChainId,
  /**
   * A test network (sandbox payments, deposit addresses, settlements and refunds only) or a real one
   * (live only). Required: a test payment must never move real money.
   */
  testnet: Schema.Boolean,
  /** JSON-RPC endpoint (http or https). */
  rpcUrl: Schema.RedactedFromValue(HttpUrl),
  /**
   * Optional: further providers of the same chain. With them, what decides a payment (a transfer, a
   * receipt, a confirmation depth, a balance) counts only when `rpcQuorum` providers answer alike;
   * see `QuorumTransport.ts`.
   */
  additionalRpcUrls: Schema.optionalKey(Schema.Array(Schema.RedactedFromValue(HttpUrl)).pipe(Schema.check(Schema.isMaxLength(8)))),
  /** Optional: how many of the providers must agree; default a majority. More than half of them. */
  rpcQuorum: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 9 })))),
  /** Blocks a transfer needs (its own included) before it counts: 1 = included. */
  requiredConfirmations: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10_000 }))),
  /**
   * Key of the executor (relayer) account that submits pull payments and pays their gas; or
   * `signers.executor` instead (one of the two).
   */
  executorPrivateKey: Schema.optionalKey(Schema.RedactedFromValue(PrivateKeyHex)),
  /** Address that receives payments on this chain. */
  collectionAddress: EvmAddress,
  /**
   * Optional: the key of `collectionAddress`, which signs payouts (settlements and refunds) from it.
   * Without it, payouts on this chain stay pending.
   */
  collectionPrivateKey: Schema.optionalKey(Schema.RedactedFromValue(PrivateKeyHex)),
  /**
   * Optional: signers that hold no key in this configuration (`TransactionSigner.ts`): a keystore
   * file or a remote signer per role. `executor` replaces `executorPrivateKey`, `payout` replaces
   * `collectionPrivateKey` (its address must be `collectionAddress`), and `sweep` signs deposit
   * sweeps (default: the executor's signer; it must own `depositFactory`).
   */
  signers: Schema.optionalKey(Schema.Struct({
    executor: Schema.optionalKey(SignerSettings),
    payout: Schema.optionalKey(SignerSettings),
    sweep: Schema.optionalKey(SignerSettings)
  })),
  /**
   * Optional: the chain's block explorer, e.g. `https://basescan.org`. The hosted checkout links a
   * payment's transaction to `{explorerUrl}/tx/{hash}`; without it, it shows the hash alone.
   */
  explorerUrl: Schema.optionalKey(HttpUrl),
  /**
   * Optional: a `DepositFactoryV2` (`packages/adapters/contracts/DepositFactoryV2.sol`) owned by the
   * executor account and sweeping to `collectionAddress`: payments then get a deposit address on
   * this chain (a plain transfer of a token or of the chain's own coin pays them). Without it, this
   * chain hands out no deposit address.
   */
  depositFactory: Schema.optionalKey(EvmAddress),
  /**
   * Optional: the chain's first `DepositFactory` (`DepositFactory.sol`, tokens only), from before
   * `depositFactory` named a version 2: the addresses it handed out are still watched and swept
   * through it; it hands out no new one.
   */
  depositFactoryV1: Schema.optionalKey(EvmAddress),
  /**
   * Optional: a `SubscriptionVault` (`packages/adapters/contracts/SubscriptionVault.sol`) built over
   * Permit2's canonical address: subscriptions in this chain's tokens are signed for it and charged
   * through it, by the executor account. Without it, this chain takes no subscription.
   */
  subscriptionVault: Schema.optionalKey(EvmAddress),
  /**
   * Optional: a `PaymentEscrow` (`packages/adapters/contracts/PaymentEscrow.sol`): held payments
   * (`capture: "manual"`) in this chain's EIP-3009 tokens are authorized into it, then captured or
   * voided by the executor account (the terms' operator). Without it, this chain takes no held payment.
   */
  paymentEscrow: Schema.optionalKey(EvmAddress),
  /**
   * Optional: the executor's gas ceilings per operation and its gas budget (see `GasPolicy.ts`);
   * unset fields take the defaults.
   */
  gas: Schema.optionalKey(GasSettings),
  /**
   * Optional: per token (its symbol or asset id), the most a payout key moves per settlement
   * (`perPayout`), per refund (`perRefund`) and per UTC day (`perDay`), as decimals in the token's
   * units; beyond them a payout waits for an owner's approval (see `PayoutLimitSettings.ts`).
   */
  limits: Schema.optionalKey(PayoutLimitSettings)
})

/** One configured chain. */
export type ChainSettings = typeof ChainSettings.Type

/** A chain's RPC providers (`rpcUrl` first) and how many must agree: `rpcQuorum`, else a majority. */
export const rpcEndpoints = (chain: Pick<ChainSettings, "rpcUrl" | "additionalRpcUrls" | "rpcQuorum">) => {
  const urls = [chain.rpcUrl, ...(chain.additionalRpcUrls ?? [])]
  return { urls, quorum: chain.rpcQuorum ?? Math.floor(urls.length / 2) + 1 }
}

/** How old (seconds) a price feed's latest round may be. */
const FeedMaxAge = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 30 * 86_400 })))

/** How a token is priced: pegged 1:1 to a fiat currency, or by an on-chain Chainlink-style feed. */
export const AssetPricing = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("peg"),
    /** ISO 4217 currency the token is pegged to, e.g. `USD`. */
    currency: Money.CurrencyCode,
    /**
     * Optional: payments in other currencies, each through an AggregatorV3 feed on the token's chain
     * answering one unit of `currency` in the pegged currency (e.g. a EUR / USD feed for `EUR` when
     * pegged to USD). Without an entry, the token is offered only for payments in its own currency.
     */
    fxFeeds: Schema.optionalKey(Schema.Array(Schema.Struct({
      currency: Money.CurrencyCode,
      address: EvmAddress,
      /** Rounds older than this are stale (no option is offered); default 3600. */
      maxAgeSeconds: Schema.optionalKey(FeedMaxAge)
    })))
  }),
  Schema.Struct({
    kind: Schema.Literal("priceFeed"),
    /** AggregatorV3 contract on the token's chain answering the token's price in `currency`. */
    address: EvmAddress,
    /** ISO 4217 currency the feed quotes in. */
    currency: Money.CurrencyCode,
    /** Optional: rounds older than this are stale (no option is offered); default 3600. */
    maxAgeSeconds: Schema.optionalKey(FeedMaxAge)
  })
])

/** How one token is priced. */
export type AssetPricing = typeof AssetPricing.Type

/** One accepted token and how wallets and the checkout page present it. */
export const AssetSettings = Schema.Struct({
  /**
   * CAIP-19 id of an ERC-20 token, e.g. `eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`,
   * or of the chain's native asset, e.g. `eip155:1/slip44:60` (ETH; see `NativeAsset.ts`).
   */
  assetId: TokenAssetId,
  decimals: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 77 }))),
  symbol: Label(32),
  name: Label(100),
  iconUrl: IconUrl,
  /** Display name of the token's network, e.g. `Base`. */
  networkName: Label(100),
  /** Icon of the token's network; none by default. */
  networkIconUrl: Schema.optionalKey(IconUrl),
  /** Seconds a wallet typically needs to complete a payment in this token; default 15. */
  etaSeconds: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 86_400 })))),
  /** Whether the token implements EIP-3009 `transferWithAuthorization` (pull payments). */
  eip3009: Schema.Boolean,
  /**
   * Optional: pull payments in this token (which has no EIP-3009) go through Permit2 at its canonical
   * address: the buyer approves Permit2 once, then signs a permit for our executor. Without it, such a
   * token is paid by a push transfer. Ignored for a token with EIP-3009.
   */
  permit2: Schema.optionalKey(Schema.Boolean),
  pricing: AssetPricing
})

/** One configured token. */
export type AssetSettings = typeof AssetSettings.Type

// One source per role: a raw key or a signer, never both (which would sign is a guess).
const signerProblems = (chain: ChainSettings, i: number) => {
  const problems: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }> = []
  const executor = chain.signers?.executor
  if ((chain.executorPrivateKey === undefined) === (executor === undefined)) {
    problems.push({ path: ["chains", i, "executorPrivateKey"], issue: "set exactly one of executorPrivateKey and signers.executor" })
  }
  if (chain.collectionPrivateKey !== undefined && chain.signers?.payout !== undefined) {
    problems.push({ path: ["chains", i, "collectionPrivateKey"], issue: "set at most one of collectionPrivateKey and signers.payout" })
  }
  return problems
}

/** Every chain and token, with the rules that span entries: unique ids, tokens only on configured chains. */
export const ChainsSettings = Schema.Struct({
  chains: Schema.Array(ChainSettings),
  assets: Schema.Array(AssetSettings)
}).pipe(
  Schema.check(
    Schema.makeFilter((settings) => {
      const problems: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }> = []
      const chainIds = new Set<string>()
      settings.chains.forEach((chain, i) => {
        if (chainIds.has(chain.chainId)) {
          problems.push({ path: ["chains", i, "chainId"], issue: `chain ${chain.chainId} is configured twice` })
        }
        chainIds.add(chain.chainId)
        problems.push(...signerProblems(chain, i))
        if (chain.limits !== undefined) {
          for (const problem of resolveLimits(chain.limits, chain.chainId, settings.assets).problems) {
            problems.push({ path: ["chains", i, "limits", ...problem.path], issue: problem.issue })
          }
        }
        const providers = 1 + (chain.additionalRpcUrls?.length ?? 0)
        if (chain.rpcQuorum !== undefined && (chain.rpcQuorum * 2 <= providers || chain.rpcQuorum > providers)) {
          problems.push({
            path: ["chains", i, "rpcQuorum"],
            issue: `with ${providers} RPC provider(s) the quorum must be more than half of them and at most all of them`
          })
        }
        const key = chain.collectionPrivateKey
        const holder = key === undefined ? chain.signers?.payout?.address : privateKeyToAddress(Redacted.value(key))
        if (holder !== undefined && !sameAddress(holder, chain.collectionAddress)) {
          problems.push({
            path: ["chains", i, key === undefined ? "signers" : "collectionPrivateKey"],
            issue: `it is the key of ${holder}, not of collectionAddress ${chain.collectionAddress}`
          })
        }
      })
      const assetIds = new Set<string>()
      settings.assets.forEach((asset, i) => {
        const assetKey = asset.assetId.toLowerCase()
        if (assetIds.has(assetKey)) {
          problems.push({ path: ["assets", i, "assetId"], issue: `asset ${asset.assetId} is configured twice` })
        }
        assetIds.add(assetKey)
        const chainId = Caip.assetChainId(asset.assetId)
        if (!chainIds.has(chainId)) {
          problems.push({ path: ["assets", i, "assetId"], issue: `chain ${chainId} is not configured under "chains"` })
        }
        problems.push(...nativeAssetProblems(settings.assets, i))
      })
      return problems
    })
  )
)

/** The whole chain configuration, decoded. */
export type ChainsSettings = typeof ChainsSettings.Type

/** The chain configuration is wrong; `message` lists every problem with its path. */
export class ChainConfigError extends Schema.TaggedError<ChainConfigError>()("ChainConfigError", {
  message: Schema.String
}) {}

/** The configured chains and tokens, indexed for lookups. */
export interface Chains {
  readonly settings: ChainsSettings
  /** By CAIP-2 chain id. */
  readonly chains: ReadonlyMap<string, ChainSettings>
  /** By CAIP-19 asset id in canonical (checksum) form. */
  readonly assets: ReadonlyMap<string, AssetSettings>
  /** Payout limits in base units, by CAIP-19 asset id in lower case; a token without limits is absent. */
  readonly limits: ReadonlyMap<string, TokenLimits>
}

/** The chain configuration of the surrounding layer. */
export class ChainsConfig extends Context.Service<ChainsConfig, Chains>()("@paygate/adapters/chain/ChainsConfig") {}

/** Indexes decoded settings. */
export const index = (settings: ChainsSettings): Chains => ({
  settings,
  chains: new Map(settings.chains.map((chain) => [chain.chainId, chain])),
  assets: new Map(settings.assets.map((asset) => [asset.assetId, asset])),
  limits: new Map(settings.chains.flatMap((chain) =>
    chain.limits === undefined
      ? []
      : [...resolveLimits(chain.limits, chain.chainId, settings.assets).limits].map(([assetId, limits]) => [assetId.toLowerCase(), limits] as const)
  ))
})

// The address follows from the key by an elliptic-curve multiplication, about a millisecond of CPU:
// once per configured chain, not once per option or confirmation.
const executorAddresses = new WeakMap<ChainSettings, Address>()

/** The executor account of a chain: its key's, or its signer's. */
export const executorAddress = (chain: ChainSettings): Address => {
  const known = executorAddresses.get(chain)
  if (known !== undefined) return known
  const address = chain.executorPrivateKey === undefined
    ? chain.signers!.executor!.address as Address
    : privateKeyToAddress(Redacted.value(chain.executorPrivateKey))
  executorAddresses.set(chain, address)
  return address
}

/** Whether pull payments in a token go through Permit2: configured so, and without EIP-3009 (which wins). */
export const viaPermit2 = (asset: AssetSettings): boolean => asset.permit2 === true && !asset.eip3009

/** The mode of the payments a configured chain carries: sandbox on a test network, live on a real one. */
export const chainMode = (chain: ChainSettings): Mode => (chain.testnet ? "sandbox" : "live")

/** The mode of the payments a configured token carries (its chain's, see {@link chainMode}). */
export const assetMode = (chains: Chains, asset: AssetSettings): Mode | undefined => {
  const chain = chains.chains.get(Caip.assetChainId(asset.assetId))
  return chain === undefined ? undefined : chainMode(chain)
}

// The first chain entry that does not say whether it is a test network: refused before the rest, in one line.
const undeclaredNetwork = (input: unknown): string | undefined => {
  const chains = typeof input === "object" && input !== null ? (input as { readonly chains?: unknown }).chains : undefined
  if (!Array.isArray(chains)) return undefined
  const index = chains.findIndex((chain) => typeof chain === "object" && chain !== null && !Object.hasOwn(chain, "testnet"))
  if (index < 0) return undefined
  const chainId = (chains[index] as { readonly chainId?: unknown }).chainId
  const named = Schema.is(Caip.ChainId)(chainId) ? ` (${chainId})` : ""
  return `chains[${index}]${named} does not say whether it is a test network: add "testnet": true (sandbox payments only) or "testnet": false (a real network: live payments only).`
}

/** Decodes and checks a configuration value (e.g. parsed JSON); fails listing every problem. */
export const decode = (input: unknown): Effect.Effect<Chains, ChainConfigError> => {
  const undeclared = undeclaredNetwork(input)
  if (undeclared !== undefined) return Effect.fail(new ChainConfigError({ message: undeclared }))
  return Schema.decodeUnknownEffect(ChainsSettings)(input, { errors: "all" }).pipe(
    Effect.map(index),
    Effect.mapError((error) => new ChainConfigError({ message: `Invalid chain configuration:\n${error.message}` }))
  )
}

/** The configuration `input` (e.g. parsed JSON), validated when the layer is built. */
export const layer = (input: unknown): Layer.Layer<ChainsConfig, ChainConfigError> =>
  Layer.effect(ChainsConfig, decode(input))

/** Name of the environment variable {@link layerFromEnv} reads. */
export const envVar = Configuration.chainsVariable

/** The configuration from the JSON text in `PAYGATE_CHAINS`, validated. */
export const fromEnv: Effect.Effect<Chains, ChainConfigError | Config.ConfigError> = Effect.gen(function*() {
    const configured = yield* Configuration.chains
    if (Option.isNone(configured)) return yield* new ChainConfigError({ message: `${envVar} is not set.` })
    const text = configured.value
    const json = yield* Effect.fromResult(Result.try(() => JSON.parse(text) as unknown)).pipe(
      Effect.mapError(() => new ChainConfigError({ message: `${envVar} is not valid JSON.` }))
    )
    return yield* decode(json)
})

/** The configuration from the JSON text in `PAYGATE_CHAINS`, validated when the layer is built. */
export const layerFromEnv: Layer.Layer<ChainsConfig, ChainConfigError | Config.ConfigError> = Layer.effect(ChainsConfig, fromEnv)

/** No chain: nothing is accepted (options response `options: []`). */
export const layerEmpty: Layer.Layer<ChainsConfig> = Layer.succeed(ChainsConfig, index({ chains: [], assets: [] }))

/** `PAYGATE_CHAINS` when it is set; otherwise no chain (said in the log). */
export const layerFromEnvOrEmpty: Layer.Layer<ChainsConfig, ChainConfigError | Config.ConfigError> = Layer.unwrap(
  Effect.gen(function*() {
    if (Option.isSome(yield* Configuration.chains)) return layerFromEnv
    yield* Effect.logInfo(`${envVar} is not set: no chain is configured; payments have no options.`)
    return layerEmpty
  })
)

/** The chain an asset id (canonical CAIP-19) is on, with the asset's settings; `undefined` if either is not configured. */
export const lookupAsset = (
  chains: Chains,
  assetId: string
): { readonly chain: ChainSettings; readonly asset: AssetSettings; readonly token: Address } | undefined => {
  const parsed = Caip.validateAssetId(assetId)
  if (Result.isFailure(parsed)) return undefined
  const canonical = `${parsed.success.chainId}/${parsed.success.assetNamespace}:${parsed.success.assetReference}`
  const asset = chains.assets.get(canonical)
  const chain = chains.chains.get(parsed.success.chainId)
  if (asset === undefined || chain === undefined) return undefined
  // The native asset has no contract: its marker address (see `NativeAsset.ts`) stands for it.
  const token = parsed.success.assetNamespace === "slip44" ? nativeToken : parsed.success.assetReference as Address
  return { chain, asset, token }
}
