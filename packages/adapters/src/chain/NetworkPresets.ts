/**
 * Networks by name: the public EVM networks paygate knows, each with its native (Circle-issued)
 * USDC, its other stablecoins (`StablecoinPresets`) and its native asset (`NativePresets`), so that an operator names them (`PAYGATE_NETWORKS=base,base-sepolia`) and supplies only
 * what is theirs: RPC URLs and keys (see `Configuration.networks`). A preset turns into the same
 * chain and token settings `PAYGATE_CHAINS` takes (JSON form, validated by `ChainConfig.decode`).
 *
 * Per network: the CAIP-2 chain id, USDC's address and decimals (6 on every network), the
 * confirmations after which a merchant can trust a transfer (deep enough for the network's usual
 * reorganisations), the block explorer (links in the checkout and webhooks), and the typical block
 * time, from which an option's `etaS` follows (confirmations × block time + 10 s for the wallet).
 * USDC's EIP-712 name and version differ per network: they are read from the token, never set here.
 * Ethereum and Polygon also offer USDT, through Permit2 (`Permit2Presets.ts`).
 *
 * @module
 */
import { Caip } from "@paygate/domain"
import { Effect, Option, Redacted, Result } from "effect"
import { readFileSync } from "node:fs"
import { privateKeyToAddress } from "viem/accounts"
import * as Configuration from "../Configuration.ts"
import { type Chains, ChainConfigError } from "./ChainConfig.ts"
import { usdtSettings } from "./Permit2Presets.ts"
import { nativeAssetSettings } from "./NativePresets.ts"
import { stablecoinAssetSettings } from "./StablecoinPresets.ts"

/** What paygate knows about a named network. */
export interface NetworkPreset {
  /** EIP-155 chain id. */
  readonly chainNumber: number
  readonly networkName: string
  /** Native USDC (EIP-55). */
  readonly usdc: `0x${string}`
  readonly confirmations: number
  readonly explorerUrl: string
  readonly blockTimeSeconds: number
  /** A test network: sandbox payments only; else live payments only (see `ChainConfig`'s `testnet`). */
  readonly testnet: boolean
}

/** Every named network. */
export const presets: { readonly [N in Configuration.NetworkName]: NetworkPreset } = {
  ethereum: {
    chainNumber: 1,
    networkName: "Ethereum",
    usdc: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    confirmations: 12,
    explorerUrl: "https://etherscan.io",
    blockTimeSeconds: 12,
    testnet: false
  },
  "ethereum-sepolia": {
    chainNumber: 11155111,
    networkName: "Ethereum Sepolia",
    usdc: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238",
    confirmations: 12,
    explorerUrl: "https://sepolia.etherscan.io",
    blockTimeSeconds: 12,
    testnet: true
  },
  base: {
    chainNumber: 8453,
    networkName: "Base",
    usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    confirmations: 10,
    explorerUrl: "https://basescan.org",
    blockTimeSeconds: 2,
    testnet: false
  },
  "base-sepolia": {
    chainNumber: 84532,
    networkName: "Base Sepolia",
    usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    confirmations: 10,
    explorerUrl: "https://sepolia.basescan.org",
    blockTimeSeconds: 2,
    testnet: true
  },
  optimism: {
    chainNumber: 10,
    networkName: "OP Mainnet",
    usdc: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
    confirmations: 10,
    explorerUrl: "https://optimistic.etherscan.io",
    blockTimeSeconds: 2,
    testnet: false
  },
  "optimism-sepolia": {
    chainNumber: 11155420,
    networkName: "OP Sepolia",
    usdc: "0x5fd84259d66Cd46123540766Be93DFE6D43130D7",
    confirmations: 10,
    explorerUrl: "https://sepolia-optimism.etherscan.io",
    blockTimeSeconds: 2,
    testnet: true
  },
  polygon: {
    chainNumber: 137,
    networkName: "Polygon",
    usdc: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
    confirmations: 64,
    explorerUrl: "https://polygonscan.com",
    blockTimeSeconds: 2,
    testnet: false
  },
  "polygon-amoy": {
    chainNumber: 80002,
    networkName: "Polygon Amoy",
    usdc: "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582",
    confirmations: 64,
    explorerUrl: "https://amoy.polygonscan.com",
    blockTimeSeconds: 2,
    testnet: true
  },
  arbitrum: {
    chainNumber: 42161,
    networkName: "Arbitrum One",
    usdc: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
    confirmations: 40,
    explorerUrl: "https://arbiscan.io",
    blockTimeSeconds: 0.25,
    testnet: false
  },
  "arbitrum-sepolia": {
    chainNumber: 421614,
    networkName: "Arbitrum Sepolia",
    usdc: "0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d",
    confirmations: 40,
    explorerUrl: "https://sepolia.arbiscan.io",
    blockTimeSeconds: 0.25,
    testnet: true
  }
}

/** Seconds a payment typically takes on `preset`: its confirmations, plus 10 s for the wallet and the executor. */
export const etaSeconds = (preset: NetworkPreset) => Math.ceil(preset.confirmations * preset.blockTimeSeconds) + 10

// USDC's mark, drawn inline so that the checkout needs no other host for it.
const usdcIcon = "data:image/svg+xml;base64," +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="16" fill="#2775ca"/>' +
      '<text x="16" y="22" font-size="18" text-anchor="middle" fill="#fff" font-family="sans-serif">$</text></svg>'
  ).toString("base64")

/** The operator's part of a named networks configuration, as read (see `Configuration.networks`). */
export type ConfiguredNetworks = Configuration.NetworksConfig

const fail = (message: string) => Effect.fail(new ChainConfigError({ message }))

const isNetworkName = (text: string): text is Configuration.NetworkName => Object.hasOwn(presets, text)

/**
 * A secret from its variable or its file (trimmed); none when neither is set. The messages name
 * the variable and the file, never the value.
 */
const readSecret = (source: Configuration.SecretSource): Effect.Effect<Option.Option<Redacted.Redacted<string>>, ChainConfigError> => {
  if (Option.isSome(source.value) && Option.isSome(source.file)) {
    return fail(`Set ${source.variable} or ${source.variable}_FILE, not both.`)
  }
  if (Option.isSome(source.value)) return Effect.succeed(source.value)
  if (Option.isNone(source.file)) return Effect.succeed(Option.none())
  const path = source.file.value
  return Effect.try({
    try: () => Option.some(Redacted.make(readFileSync(path, "utf8").trim())),
    catch: () => new ChainConfigError({ message: `${source.variable}_FILE: ${path} cannot be read.` })
  })
}

const privateKey = /^0x[0-9a-fA-F]{64}$/

/**
 * The chain settings (JSON form, for `ChainConfig.decode`) of the named networks: each preset's
 * chain and USDC, with the operator's RPC URLs and keys. Fails in one line on an unknown name, a
 * missing or malformed RPC URL, key or address (without ever showing a URL or a key).
 */
export const settingsFor = (configured: ConfiguredNetworks, names: string) =>
  Effect.gen(function*() {
    const listed = [...new Set(names.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== ""))]
    const unknown = listed.filter((name) => !isNetworkName(name))
    if (unknown.length > 0) {
      return yield* fail(`PAYGATE_NETWORKS: unknown network ${unknown.join(", ")}; known: ${Object.keys(presets).join(", ")}.`)
    }
    const networks = listed as ReadonlyArray<Configuration.NetworkName>
    const executorKey = yield* readSecret(configured.executorKey)
    if (Option.isNone(executorKey)) return yield* fail("PAYGATE_EXECUTOR_KEY (or PAYGATE_EXECUTOR_KEY_FILE) is not set: the executor pays the gas of pull payments.")
    if (!privateKey.test(Redacted.value(executorKey.value))) return yield* fail("PAYGATE_EXECUTOR_KEY is not a 0x-prefixed 32-byte hex private key.")
    const collectionKey = yield* readSecret(configured.collectionKey)
    if (Option.isSome(collectionKey) && !privateKey.test(Redacted.value(collectionKey.value))) {
      return yield* fail("PAYGATE_COLLECTION_KEY is not a 0x-prefixed 32-byte hex private key.")
    }
    const collectionAddress = Option.getOrElse(
      configured.collectionAddress,
      () => (Option.isSome(collectionKey) ? privateKeyToAddress(Redacted.value(collectionKey.value) as `0x${string}`) : "")
    )
    if (collectionAddress === "") return yield* fail("PAYGATE_COLLECTION_ADDRESS is not set: payments need an address to go to.")
    const checked = Caip.normalizeEip55Address(collectionAddress)
    if (Result.isFailure(checked)) return yield* fail(`PAYGATE_COLLECTION_ADDRESS is not an address: it ${checked.failure}.`)
    const chains = []
    for (const network of networks) {
      const rpcUrl = configured.rpcUrls[network]
      if (rpcUrl === undefined || Option.isNone(rpcUrl)) {
        return yield* fail(`${Configuration.rpcVariable(network)} is not set: the RPC URL of ${network}.`)
      }
      // Several providers, comma-separated, are read with a majority quorum (`QuorumTransport.ts`).
      const rpcUrls = Redacted.value(rpcUrl.value).split(",").map((text) => text.trim())
      // The URL itself is never repeated: provider URLs carry API keys.
      if (rpcUrls.some((text) => !/^https?:$/.test(URL.parse(text)?.protocol ?? ""))) {
        return yield* fail(`${Configuration.rpcVariable(network)} is not an http(s) URL (or several, comma-separated).`)
      }
      const preset = presets[network]
      const addressIn = (value: Option.Option<string> | undefined, variable: string) => {
        const read = value === undefined || Option.isNone(value) ? undefined : Caip.normalizeEip55Address(value.value)
        return read !== undefined && Result.isFailure(read) ? fail(`${variable} is not an address: it ${read.failure}.`) : Effect.succeed(read?.success)
      }
      const depositFactory = yield* addressIn(configured.depositFactories[network], Configuration.depositFactoryVariable(network))
      const depositFactoryV1 = yield* addressIn(configured.firstDepositFactories[network], Configuration.depositFactoryV1Variable(network))
      const subscriptionVault = yield* addressIn(configured.subscriptionVaults[network], Configuration.subscriptionVaultVariable(network))
      const paymentEscrow = yield* addressIn(configured.paymentEscrows[network], Configuration.paymentEscrowVariable(network))
      chains.push({
        chainId: `eip155:${preset.chainNumber}`,
        testnet: preset.testnet,
        rpcUrl: rpcUrls[0]!,
        ...(rpcUrls.length > 1 ? { additionalRpcUrls: rpcUrls.slice(1) } : {}),
        requiredConfirmations: preset.confirmations,
        executorPrivateKey: Redacted.value(executorKey.value),
        collectionAddress,
        ...(Option.isSome(collectionKey) ? { collectionPrivateKey: Redacted.value(collectionKey.value) } : {}),
        explorerUrl: preset.explorerUrl,
        ...(depositFactory === undefined ? {} : { depositFactory }),
        ...(depositFactoryV1 === undefined ? {} : { depositFactoryV1 }),
        ...(subscriptionVault === undefined ? {} : { subscriptionVault }),
        ...(paymentEscrow === undefined ? {} : { paymentEscrow })
      })
    }
    const assets = networks.flatMap((network) => {
      const preset = presets[network]
      const more = [
        ...stablecoinAssetSettings(network, preset.chainNumber, preset.networkName, etaSeconds(preset)),
        ...nativeAssetSettings(network, preset.chainNumber, preset.networkName, etaSeconds(preset))
      ]
      return [{
        assetId: `eip155:${preset.chainNumber}/erc20:${preset.usdc}`,
        decimals: 6,
        symbol: "USDC",
        name: "USD Coin",
        iconUrl: usdcIcon,
        networkName: preset.networkName,
        etaSeconds: etaSeconds(preset),
        eip3009: true,
        pricing: { kind: "peg", currency: "USD" }
      }, ...usdtSettings(network, preset, etaSeconds(preset)), ...more]
    })
    return { networks, settings: { chains, assets } }
  })

/**
 * Refuses, in one line, a chain of `PAYGATE_CHAINS` declared against what is known of its chain id:
 * a real network declared a test one would let sandbox payments move real money.
 */
export const checkDeclarations = (chains: Chains): Effect.Effect<Chains, ChainConfigError> => {
  for (const chain of chains.settings.chains) {
    const known = Object.values(presets).find((preset) => `eip155:${preset.chainNumber}` === chain.chainId)
    if (known !== undefined && known.testnet !== chain.testnet) {
      return fail(
        known.testnet
          ? `${chain.chainId} is ${known.networkName}, a test network: declare it "testnet": true.`
          : `${chain.chainId} is ${known.networkName}, a real network: declare it "testnet": false (sandbox payments never use it).`
      )
    }
  }
  return Effect.succeed(chains)
}
