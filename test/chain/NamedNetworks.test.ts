/**
 * Networks by name without the internet: two anvils at the real chain ids of Base (8453) and
 * Arbitrum One (42161), the test token's code placed at each preset's real USDC address, and the
 * service configured only with `PAYGATE_NETWORKS=base,arbitrum`, the RPC URLs and keys (the
 * executor's from a file). Options list both networks; a payment is paid on each, two on each
 * chain, with the executor's nonces one sequence per chain. Start-up refuses, in one line and
 * without any key or RPC URL, a wrong chain, a token without EIP-3009, an executor without gas,
 * and configuration mistakes. A subscription vault deployed as `subscription-vault deploy` does is
 * configured by its variable; one that is no vault over Permit2 is refused in one line. Likewise a
 * payment escrow deployed as `payment-escrow deploy` does: configured by its variable, refused without code.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { ConfigProvider, Context, Effect, Exit, Fiber, Layer, Logger, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createWalletClient, encodeDeployData, getAddress, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob } from "../support/ChainJobs.ts"
import { closeServerThenChains, type PresetChain, presetChain } from "../support/PresetChain.ts"
import { makeTestServer, pglite, type TestServer } from "../support/TestServer.ts"

const { anvilAccount, ChainConfig, ChainSource, NetworkPresets, StablecoinPresets } = Chain

const executor = anvilAccount(0)
const collection = anvilAccount(9)
const payer = anvilAccount(6)

/** A local chain at `chainNumber` with the test token's code at `usdc` (owner anvil #0) and TUSDC for the payer. */
const presetChainFor = (scope: Scope.Scope, chainNumber: number, usdc: Hex) => presetChain(scope, chainNumber, usdc, [payer.address])

const base = NetworkPresets.presets.base
const arbitrum = NetworkPresets.presets.arbitrum
const optimism = NetworkPresets.presets.optimism
const usdt0 = StablecoinPresets.stablecoinPresets.arbitrum![0]!.address

describe("Named networks (anvil at the real chain ids)", () => {
  const scope = Effect.runSync(Scope.make())
  let chains: { readonly base: PresetChain; readonly arbitrum: PresetChain; readonly optimism: PresetChain }
  let keyFile: string
  let server: TestServer
  let executorFiber: Fiber.Fiber<unknown, unknown>
  const logs: Array<string> = []

  /** The operator's environment for `networks`. */
  const environment = (overrides: Record<string, string> = {}) => ({
    PAYGATE_NETWORKS: "base,arbitrum",
    PAYGATE_RPC_BASE: chains.base.rpcUrl,
    PAYGATE_RPC_ARBITRUM: chains.arbitrum.rpcUrl,
    PAYGATE_RPC_OPTIMISM: chains.optimism.rpcUrl,
    PAYGATE_EXECUTOR_KEY_FILE: keyFile,
    PAYGATE_COLLECTION_ADDRESS: collection.address,
    ...overrides
  })
  const capture = Logger.layer([Logger.make(({ message }) => void logs.push(Array.isArray(message) ? message.join(" ") : String(message)))])
  const chainsFrom = (env: Record<string, string>) =>
    ChainSource.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))), Layer.provide(capture))
  /** The one-line start-up error for `env`. */
  const startError = async (env: Record<string, string>) => {
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(chainsFrom(env))))
    if (Exit.isSuccess(exit)) throw new Error("the configuration was accepted")
    const message = String((exit.cause as any).reasons?.[0]?.error?.message ?? exit.cause)
    expect(message).not.toContain("\n")
    expect(message.toLowerCase()).not.toContain(executor.privateKey.slice(2).toLowerCase())
    expect(message).not.toContain("127.0.0.1")
    return message
  }

  /** Deploys `data` on the Base anvil from anvil #7 (no executor nonce used); answers the contract's address. */
  const deployOnBase = async (data: Hex) => {
    const deployer = createWalletClient({ account: privateKeyToAccount(anvilAccount(7).privateKey), transport: http(chains.base.rpcUrl) })
    const receipt = await chains.base.client.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ chain: null, data }) })
    return getAddress(receipt.contractAddress!)
  }

  beforeAll(async () => {
    chains = {
      base: await presetChainFor(scope, base.chainNumber, base.usdc),
      // USDT0 is Arbitrum One's too: the test token's code at its real address.
      arbitrum: await presetChain(scope, arbitrum.chainNumber, arbitrum.usdc, [payer.address], { tokens: [usdt0] }),
      optimism: await presetChainFor(scope, optimism.chainNumber, optimism.usdc)
    }
    keyFile = join(mkdtempSync(join(tmpdir(), "paygate-keys-")), "executor.key")
    writeFileSync(keyFile, `${executor.privateKey}\n`)
    server = await makeTestServer(pglite, {
      gateway: GatewayServices.settings({ chains: Layer.orDie(chainsFrom(environment())), secret: new Uint8Array(randomBytes(32)) })
    })
    executorFiber = await server.run(Effect.forkDetach(Layer.launch(executorJob)))
  }, 120_000)
  afterAll(async () => {
    if (executorFiber !== undefined) await Effect.runPromise(Fiber.interrupt(executorFiber))
    await closeServerThenChains(server, scope)
  })

  it("options list both networks at their presets; each payment pays on its own chain; one nonce sequence per chain", async () => {
    const partner = await server.partner()
    // Base and Arbitrum One are real networks: live payments only.
    const merchantId = await server.merchant(partner.live)
    const walletKey = await server.walletKey("live")
    const gateway = (method: string, path: string, body?: unknown) =>
      server.request(method, path, { apiKey: walletKey, ...(body === undefined ? {} : { body }) })
    const noncesBefore = {
      base: await chains.base.client.getTransactionCount({ address: executor.address }),
      arbitrum: await chains.arbitrum.client.getTransactionCount({ address: executor.address })
    }
    const pay = async (network: "base" | "arbitrum") => {
      const preset = NetworkPresets.presets[network]
      const payment = await server.payment(partner.live, merchantId)
      const options = await gateway("POST", `/v1/gateway/payment/${payment.paymentId}/options`, {
        accounts: [`eip155:${base.chainNumber}:${payer.address}`, `eip155:${arbitrum.chainNumber}:${payer.address}`]
      })
      expect(options.status).toBe(200)
      expect(options.body.options.map((o: any) => [o.amount.unit, o.etaS])).toEqual([
        [`caip19/eip155:${base.chainNumber}/erc20:${base.usdc}`, NetworkPresets.etaSeconds(base)],
        [`caip19/eip155:${arbitrum.chainNumber}/erc20:${arbitrum.usdc}`, NetworkPresets.etaSeconds(arbitrum)],
        [`caip19/eip155:${arbitrum.chainNumber}/erc20:${usdt0}`, NetworkPresets.etaSeconds(arbitrum)]
      ])
      const option = options.body.options.find((o: any) => o.amount.unit.includes(`eip155:${preset.chainNumber}/`))
      const signature = await Chain.LocalWallet.signOption(option, payer.privateKey)
      const confirmed = await gateway("POST", `/v1/gateway/payment/${payment.paymentId}/confirm`, {
        optionId: option.id,
        results: [{ type: "walletRpc", data: [signature] }],
        collectedData: null
      })
      expect(confirmed.status).toBe(200)
      return payment.paymentId as string
    }
    const balance = (network: "base" | "arbitrum") => chains[network].balanceOf(collection.address)
    const before = { base: await balance("base"), arbitrum: await balance("arbitrum") }
    const paid = await Promise.all([pay("base"), pay("arbitrum"), pay("base"), pay("arbitrum")])
    for (const id of paid) {
      const deadline = Date.now() + 60_000
      for (;;) {
        const status = await gateway("GET", `/v1/gateway/payment/${id}/status?maxPollMs=1000`)
        if (status.body.status === "succeeded") break
        if (Date.now() > deadline) throw new Error(`${id} is ${status.body.status}`)
      }
    }
    // 12.50 USD in USDC (6 decimals), twice on each chain, each to the collection address on its own chain.
    expect(await balance("base")).toBe(before.base + 25_000_000n)
    expect(await balance("arbitrum")).toBe(before.arbitrum + 25_000_000n)
    expect(await chains.base.client.getTransactionCount({ address: executor.address })).toBe(noncesBefore.base + 2)
    expect(await chains.arbitrum.client.getTransactionCount({ address: executor.address })).toBe(noncesBefore.arbitrum + 2)
    const record = await server.request("GET", `/v1/payments/${paid[0]}`, { apiKey: partner.live })
    expect(record.body.status).toBe("succeeded")
    // The record (as the partner API and webhooks carry it) links the transaction on the network's explorer.
    expect(record.body.transaction.explorerUrl).toBe(`${NetworkPresets.presets.base.explorerUrl}/tx/${record.body.transaction.hash}`)
    // Start-up logged what it checked, never a key.
    expect(logs.join("\n")).toContain(`base (eip155:8453): USDC ${base.usdc}, EIP-712 domain "Test USD Coin" version "2"`)
    expect(logs.join("\n").toLowerCase()).not.toContain(executor.privateKey.slice(2).toLowerCase())
  })

  it("start-up refuses a wrong chain, a token without EIP-3009, an executor without gas: one line each, no key, no RPC URL", async () => {
    expect(await startError(environment({ PAYGATE_RPC_BASE: chains.arbitrum.rpcUrl }))).toBe(
      "base: PAYGATE_RPC_BASE serves chain id 42161, not 8453."
    )
    const unreachable = await startError(environment({ PAYGATE_RPC_BASE: "http://127.0.0.1:9/v2/provider-api-key-123" }))
    expect(unreachable).toMatch(/^base: PAYGATE_RPC_BASE does not answer/)
    expect(unreachable).not.toContain("provider-api-key-123")
    const { client } = chains.optimism
    const withOptimism = environment({ PAYGATE_NETWORKS: "optimism" })
    await client.request({ method: "anvil_setBalance" as never, params: [executor.address, "0x0"] as never })
    expect(await startError(withOptimism)).toBe(`optimism: the executor ${executor.address} has no native currency for gas: fund it before starting.`)
    await client.request({ method: "anvil_setCode" as never, params: [optimism.usdc, "0x"] as never })
    expect(await startError(withOptimism)).toBe(`optimism: no contract at USDC's address ${optimism.usdc}: is PAYGATE_RPC_OPTIMISM an RPC of OP Mainnet?`)
    // A contract that is no EIP-3009 token: it reverts every call (PUSH1 0, PUSH1 0, REVERT).
    await client.request({ method: "anvil_setCode" as never, params: [optimism.usdc, "0x60006000fd"] as never })
    expect(await startError(withOptimism)).toMatch(new RegExp(`^optimism: the token at ${optimism.usdc} has no usable EIP-712 domain`))
  })

  it("a deposit factory per network: only that network offers deposit addresses; one not the executor's, sweeping elsewhere or no factory at all is refused in one line", async () => {
    const configured = await Effect.runPromise(Effect.scoped(Effect.map(
      Layer.build(chainsFrom(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory }))),
      (context) => Context.get(context, ChainConfig.ChainsConfig)
    )))
    expect(configured.chains.get(`eip155:${base.chainNumber}`)?.depositFactory).toBe(chains.base.depositFactory)
    expect(configured.chains.get(`eip155:${arbitrum.chainNumber}`)?.depositFactory).toBeUndefined()
    expect(logs.some((line) => line.includes(`deposit factory ${chains.base.depositFactory}`))).toBe(true)

    expect(await startError(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: "0x1234" }))).toMatch(/^PAYGATE_DEPOSIT_FACTORY_BASE is not an address: it /)
    expect(await startError(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: payer.address }))).toBe(
      `base: PAYGATE_DEPOSIT_FACTORY_BASE: ${payer.address} is not a DepositFactory (its owner could not be read).`
    )
    const elsewhere = anvilAccount(8).address
    expect(await startError(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory, PAYGATE_COLLECTION_ADDRESS: elsewhere }))).toBe(
      `base: PAYGATE_DEPOSIT_FACTORY_BASE: the factory sweeps to ${collection.address}, not to the collection address ${elsewhere}.`
    )
    const other = anvilAccount(1)
    expect(await startError(environment({
      PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory,
      PAYGATE_EXECUTOR_KEY_FILE: "",
      PAYGATE_EXECUTOR_KEY: other.privateKey
    }))).toBe(`base: PAYGATE_DEPOSIT_FACTORY_BASE: the factory is owned by ${executor.address}, not by the executor ${other.address}.`)

    // A first DepositFactory (tokens only) named as the factory is refused with where it goes; named there, it is still swept.
    const first = await deployOnBase(
      encodeDeployData({ abi: Chain.Contracts.DepositFactory.abi, bytecode: Chain.Contracts.DepositFactory.bytecode, args: [executor.address, collection.address] })
    )
    expect(await startError(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: first }))).toBe(
      `base: PAYGATE_DEPOSIT_FACTORY_BASE: ${first} is not a DepositFactoryV2 (a first DepositFactory answers no version): deploy one ` +
        "(npm run admin -- deposit-factory deploy --network base), set it here and move this address to PAYGATE_DEPOSIT_FACTORY_V1_BASE."
    )
    const upgraded = await Effect.runPromise(Effect.scoped(Effect.map(
      Layer.build(chainsFrom(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory, PAYGATE_DEPOSIT_FACTORY_V1_BASE: first }))),
      (context) => Context.get(context, ChainConfig.ChainsConfig)
    )))
    expect(upgraded.chains.get(`eip155:${base.chainNumber}`)).toMatchObject({ depositFactory: chains.base.depositFactory, depositFactoryV1: first })
    expect(await startError(environment({ PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory, PAYGATE_DEPOSIT_FACTORY_V1_BASE: payer.address }))).toBe(
      `base: PAYGATE_DEPOSIT_FACTORY_V1_BASE: ${payer.address} is not a DepositFactory (its owner could not be read).`
    )
  })

  it("a subscription vault per network: deployed over Permit2, only that network takes subscriptions; no contract, another contract or another Permit2 is refused in one line", async () => {
    const vaultVariable = "PAYGATE_SUBSCRIPTION_VAULT_BASE"
    const deployVault = (network: string, env: Record<string, string>) =>
      Effect.runPromiseExit(Chain.ContractDeployment.deployVault(network).pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))))
    const deployed = await deployVault("base", environment())
    if (Exit.isFailure(deployed)) throw new Error(String(deployed.cause))
    const vault = deployed.value.subscriptionVault
    expect(deployed.value).toEqual({ network: "base", subscriptionVault: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), variable: vaultVariable })
    const configured = await Effect.runPromise(Effect.scoped(Effect.map(
      Layer.build(chainsFrom(environment({ [vaultVariable]: vault }))),
      (context) => Context.get(context, ChainConfig.ChainsConfig)
    )))
    expect(configured.chains.get(`eip155:${base.chainNumber}`)?.subscriptionVault).toBe(vault)
    expect(configured.chains.get(`eip155:${arbitrum.chainNumber}`)?.subscriptionVault).toBeUndefined()
    expect(logs.some((line) => line.includes(`subscription vault ${vault}`))).toBe(true)

    expect(await startError(environment({ [vaultVariable]: "0x1234" }))).toMatch(/^PAYGATE_SUBSCRIPTION_VAULT_BASE is not an address: it /)
    expect(await startError(environment({ [vaultVariable]: payer.address }))).toBe(`base: ${vaultVariable}: no contract at ${payer.address}.`)
    expect(await startError(environment({ [vaultVariable]: chains.base.depositFactory }))).toBe(
      `base: ${vaultVariable}: ${chains.base.depositFactory} is not a SubscriptionVault (its permit2 could not be read).`
    )
    // A vault built over another address than Permit2's canonical one.
    const elsewhere = anvilAccount(5).address
    const other = await deployOnBase(
      encodeDeployData({ abi: Chain.Contracts.SubscriptionVault.abi, bytecode: Chain.Contracts.SubscriptionVault.bytecode, args: [elsewhere] })
    )
    expect(await startError(environment({ [vaultVariable]: other }))).toBe(
      `base: ${vaultVariable}: the vault charges through ${elsewhere}, not Permit2's canonical address ${Chain.Permit2.permit2Address}.`
    )

    // Where Permit2 is not at its canonical address, the command refuses to deploy.
    await chains.optimism.client.request({ method: "anvil_setCode" as never, params: [Chain.Permit2.permit2Address, "0x"] as never })
    const refused = await deployVault("optimism", environment({ PAYGATE_NETWORKS: "optimism" }))
    if (Exit.isSuccess(refused)) throw new Error("the deployment was not refused")
    expect(String((refused.cause as any).reasons?.[0]?.error?.message)).toBe(
      `optimism: no Permit2 at its canonical address ${Chain.Permit2.permit2Address}: a SubscriptionVault charges through it.`
    )
  })

  it("a payment escrow per network: deployed by the command, only that network holds payments; no contract or another contract is refused in one line", async () => {
    const escrowVariable = "PAYGATE_PAYMENT_ESCROW_BASE"
    const deployed = await Effect.runPromiseExit(
      Chain.ContractDeployment.deployEscrow("base").pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(environment()))))
    )
    if (Exit.isFailure(deployed)) throw new Error(String(deployed.cause))
    const escrow = deployed.value.paymentEscrow
    expect(deployed.value).toEqual({ network: "base", paymentEscrow: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), variable: escrowVariable })
    const configured = await Effect.runPromise(Effect.scoped(Effect.map(
      Layer.build(chainsFrom(environment({ [escrowVariable]: escrow }))),
      (context) => Context.get(context, ChainConfig.ChainsConfig)
    )))
    expect(configured.chains.get(`eip155:${base.chainNumber}`)?.paymentEscrow).toBe(escrow)
    expect(configured.chains.get(`eip155:${arbitrum.chainNumber}`)?.paymentEscrow).toBeUndefined()
    expect(logs.some((line) => line.includes(`payment escrow ${escrow}`))).toBe(true)

    expect(await startError(environment({ [escrowVariable]: "0x1234" }))).toMatch(/^PAYGATE_PAYMENT_ESCROW_BASE is not an address: it /)
    expect(await startError(environment({ [escrowVariable]: payer.address }))).toBe(`base: ${escrowVariable}: no contract at ${payer.address}.`)
    expect(await startError(environment({ [escrowVariable]: chains.base.depositFactory }))).toBe(
      `base: ${escrowVariable}: ${chains.base.depositFactory} is not a PaymentEscrow (its payments could not be read).`
    )
  })

  it("configuration mistakes are one line each and never show a key", async () => {
    expect(await startError(environment({ PAYGATE_NETWORKS: "base,basenet" }))).toMatch(/^PAYGATE_NETWORKS: unknown network basenet; known: ethereum, /)
    expect(await startError({ ...environment(), PAYGATE_RPC_ARBITRUM: "" })).toBe("PAYGATE_RPC_ARBITRUM is not set: the RPC URL of arbitrum.")
    expect(await startError({ ...environment(), PAYGATE_CHAINS: "{}" })).toBe("Set PAYGATE_NETWORKS or PAYGATE_CHAINS, not both.")
    expect(await startError({ ...environment(), PAYGATE_EXECUTOR_KEY: executor.privateKey })).toBe(
      "Set PAYGATE_EXECUTOR_KEY or PAYGATE_EXECUTOR_KEY_FILE, not both."
    )
    expect(await startError({ ...environment(), PAYGATE_EXECUTOR_KEY_FILE: "", PAYGATE_EXECUTOR_KEY: `${executor.privateKey.slice(0, 60)}zz` })).toBe(
      "PAYGATE_EXECUTOR_KEY is not a 0x-prefixed 32-byte hex private key."
    )
    expect(await startError({ ...environment(), PAYGATE_EXECUTOR_KEY_FILE: join(tmpdir(), "no-such-key-file") })).toMatch(
      /^PAYGATE_EXECUTOR_KEY_FILE: .* cannot be read\.$/
    )
    expect(await startError({ ...environment(), PAYGATE_RPC_BASE: "wss://node.example/v2/provider-api-key-456" })).toBe(
      "PAYGATE_RPC_BASE is not an http(s) URL (or several, comma-separated)."
    )
    expect(await startError({ ...environment(), PAYGATE_COLLECTION_ADDRESS: "0x1234" })).toMatch(/^PAYGATE_COLLECTION_ADDRESS is not an address: it /)
    expect(await startError({ ...environment(), PAYGATE_COLLECTION_ADDRESS: "" })).toBe(
      "PAYGATE_COLLECTION_ADDRESS is not set: payments need an address to go to."
    )
  })
})
