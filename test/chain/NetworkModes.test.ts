/**
 * Test payments never touch a real network, live ones never a test network: two anvils, one at
 * Base's real chain id (8453, a real network) and one at Base Sepolia's (84532, a test network),
 * configured by name (`PAYGATE_NETWORKS=base,base-sepolia`), with deposit factories, the collection
 * key (settlements and refunds) and the worker's jobs running. Through the API, the checkout and
 * the worker, a sandbox key never sees, confirms, sweeps or pays out on Base, and a live key never
 * on Base Sepolia; a deployment with only Base refuses sandbox payments at creation.
 */
import { Chain, GatewayServices, SqlPersistence } from "@paygate/adapters"
import { DepositSweeps, OptionIds } from "@paygate/domain"
import { defaultPayoutSettings, depositSweepJob, PayoutSettings } from "@paygate/worker"
import { ConfigProvider, Effect, Fiber, Layer, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { type Address, type Hex, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob, payoutJobs } from "../support/ChainJobs.ts"
import { closeServerThenChains, type PresetChain, presetChain } from "../support/PresetChain.ts"
import { makeTestServer, pglite, type TestPartner, type TestServer } from "../support/TestServer.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { eventually as waitUntil } from "../support/Eventually.ts"
import { watcherJob } from "../support/WatcherJob.ts"

const { anvilAccount, ChainConfig, ChainSource, DepositAddresses, NetworkPresets } = Chain

const executor = anvilAccount(0)
const collection = anvilAccount(9)
const payer = anvilAccount(6)
const base = NetworkPresets.presets.base
const sepolia = NetworkPresets.presets["base-sepolia"]
const usdcOn = (preset: Chain.NetworkPresets.NetworkPreset) => `eip155:${preset.chainNumber}/erc20:${preset.usdc}`
const accountOn = (preset: Chain.NetworkPresets.NetworkPreset, address: Address = payer.address) => `eip155:${preset.chainNumber}:${address}`
/** 12.50 USD in USDC base units. */
const amount = 12_500_000n

const eventually = <A>(read: () => Promise<A>, done: (a: A) => boolean, withinMs = 45_000) => waitUntil(read, done, withinMs)

describe("Networks by mode (anvil at Base's and Base Sepolia's chain ids)", () => {
  const scope = Effect.runSync(Scope.make())
  let chains: { readonly base: PresetChain; readonly sepolia: PresetChain }
  let server: TestServer
  let partner: TestPartner
  let merchants: { readonly sandbox: string; readonly live: string }
  let wallets: { readonly sandbox: string; readonly live: string }
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []

  const environment = (networks: string) => ({
    PAYGATE_NETWORKS: networks,
    PAYGATE_RPC_BASE: chains.base.rpcUrl,
    PAYGATE_RPC_BASE_SEPOLIA: chains.sepolia.rpcUrl,
    PAYGATE_EXECUTOR_KEY: executor.privateKey,
    PAYGATE_COLLECTION_KEY: collection.privateKey,
    PAYGATE_DEPOSIT_FACTORY_BASE: chains.base.depositFactory,
    PAYGATE_DEPOSIT_FACTORY_BASE_SEPOLIA: chains.sepolia.depositFactory
  })
  const serverFor = (networks: string) =>
    makeTestServer(pglite, {
      gateway: GatewayServices.settings({
        chains: Layer.orDie(ChainSource.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(environment(networks)))))),
        secret: new Uint8Array(randomBytes(32))
      })
    })

  const gateway = (mode: "sandbox" | "live", method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: wallets[mode], ...(body === undefined ? {} : { body }) })
  const paymentOf = async (mode: "sandbox" | "live") => (await server.payment(partner[mode], merchants[mode])).paymentId as string
  const optionsOf = async (mode: "sandbox" | "live", paymentId: string) => {
    const response = await gateway(mode, "POST", `/v1/gateway/payment/${paymentId}/options`, {
      accounts: [accountOn(base), accountOn(sepolia)]
    })
    expect(response.status).toBe(200)
    return response.body.options as Array<any>
  }
  const record = async (mode: "sandbox" | "live", paymentId: string) =>
    (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner[mode] })).body
  const nonceOf = (chain: PresetChain, address: Address) => chain.client.getTransactionCount({ address })

  beforeAll(async () => {
    chains = {
      base: await presetChain(scope, base.chainNumber, base.usdc, [payer.address, collection.address]),
      sepolia: await presetChain(scope, sepolia.chainNumber, sepolia.usdc, [payer.address, collection.address])
    }
    server = await serverFor("base,base-sepolia")
    partner = await server.partner()
    merchants = { sandbox: await server.merchant(partner.sandbox), live: await server.merchant(partner.live) }
    wallets = { sandbox: await server.walletKey("sandbox"), live: await server.walletKey("live") }
    const configured = await server.run(Effect.gen(function*() {
      return yield* ChainConfig.ChainsConfig
    }))
    const watcher = watcherJob(configured)
    const sweeps = depositSweepJob.pipe(
      Layer.provide(DepositSweeps.layer),
      Layer.provide(Layer.mergeAll(SqlPersistence.layer, Chain.ViemDepositSweeper.layer)),
      Layer.provide(Layer.succeed(PayoutSettings, { ...defaultPayoutSettings, pollIntervalMs: 50, pendingRecheckMs: 100, retryMs: 200 }))
    )
    for (const job of [executorJob, payoutJobs(), watcher, sweeps]) {
      fibers.push(await server.run(Effect.forkDetach(Layer.launch(job as Layer.Layer<never, never, any>))))
    }
  }, 180_000)
  afterAll(async () => {
    for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
    await closeServerThenChains(server, scope)
  })

  it("options, deposit addresses and the checkout: a sandbox payment sees Base Sepolia only, a live one Base only", async () => {
    for (const [mode, own] of [["sandbox", sepolia], ["live", base]] as const) {
      const paymentId = await paymentOf(mode)
      expect((await optionsOf(mode, paymentId)).map((o) => o.amount.unit)).toEqual([`caip19/${usdcOn(own)}`])
      const deposit = await gateway(mode, "POST", `/v1/gateway/payment/${paymentId}/deposit`)
      expect(deposit.status).toBe(200)
      expect(deposit.body.options.map((o: any) => o.network)).toEqual([`eip155:${own.chainNumber}`])
      const page = await server.request("GET", `/checkout/${paymentId}`)
      expect(page.text).toContain(`"chains":["eip155:${own.chainNumber}"]`)
    }
  })

  it("a confirm with an option crafted for the other mode's network is refused, and nothing moves there", async () => {
    for (const [mode, other, chain] of [["sandbox", base, () => chains.base], ["live", sepolia, () => chains.sepolia]] as const) {
      const paymentId = await paymentOf(mode)
      const payment = await record(mode, paymentId)
      // An option id as the service would issue it (same secret), for the payment, on the other network.
      const nonce = toHex(randomBytes(32))
      const optionId = await server.run(Effect.gen(function*() {
        return yield* (yield* OptionIds).issue({
          paymentId,
          account: accountOn(other),
          asset: usdcOn(other),
          value: amount.toString(),
          expiresAt: null,
          kind: "pull",
          nonce,
          quotedAt: Math.floor(Date.now() / 1000)
        })
      }))
      // A valid EIP-3009 authorization of the payer on that network: the token's own domain.
      const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
        domain: { name: "Test USD Coin", version: "2", chainId: other.chainNumber, verifyingContract: other.usdc },
        types: Chain.Eip3009.transferWithAuthorizationTypes,
        primaryType: "TransferWithAuthorization",
        message: { from: payer.address, to: collection.address, value: amount, validAfter: 0n, validBefore: BigInt(payment.expiresAt), nonce: nonce as Hex }
      })
      const before = { nonce: await nonceOf(chain(), executor.address), balance: await chain().balanceOf(payer.address) }
      const confirmed = await gateway(mode, "POST", `/v1/gateway/payment/${paymentId}/confirm`, {
        optionId,
        results: [{ type: "walletRpc", data: [signature] }],
        collectedData: null
      })
      expect(confirmed.status).toBe(400)
      expect(confirmed.body.code).toBe("params_validation")
      expect(confirmed.body.message).toBe(
        mode === "sandbox"
          ? "This option is not on a test network: sandbox payments use test networks only."
          : "This option is not on a real network: live payments use real networks only."
      )
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect((await record(mode, paymentId)).status).toBe("requires_action")
      expect(await nonceOf(chain(), executor.address)).toBe(before.nonce)
      expect(await chain().balanceOf(payer.address)).toBe(before.balance)
    }
  })

  it("settlement destinations: a sandbox merchant's on test networks only, a live merchant's on real networks only", async () => {
    const register = (mode: "sandbox" | "live", preset: Chain.NetworkPresets.NetworkPreset) =>
      server.request("POST", `/v1/merchants/${merchants[mode]}/settlements/crypto`, {
        apiKey: partner[mode],
        body: { settlements: [{ asset: usdcOn(preset), destination: accountOn(preset, anvilAccount(5).address) }] }
      })
    const refused = await register("sandbox", base)
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      code: "params_validation",
      message: `settlements[0].asset ${usdcOn(base)} is not on a test network: sandbox payments use test networks only.`
    })
    expect((await register("live", sepolia)).body.message).toBe(
      `settlements[0].asset ${usdcOn(sepolia)} is not on a real network: live payments use real networks only.`
    )
    expect((await register("sandbox", sepolia)).status).toBe(201)
    expect((await register("live", base)).status).toBe(201)
  })

  it("the worker never pays a sandbox payment's refund out on Base (a payment recorded there before the rule); on Base Sepolia it does", async () => {
    const refundOf = async (network: Chain.NetworkPresets.NetworkPreset) => {
      const paymentId = await paymentOf("sandbox")
      await server.succeed(paymentId, { account: accountOn(network), asset: usdcOn(network), tokenAmount: amount })
      const refund = await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId } })
      expect(refund.status).toBe(201)
      return eventually(() => record("sandbox", paymentId), (r) => r.refund?.status !== "pending")
    }
    const before = { nonce: await nonceOf(chains.base, collection.address), payer: await chains.base.balanceOf(payer.address) }
    expect((await refundOf(base)).refund.status).toBe("failed")
    expect(await nonceOf(chains.base, collection.address)).toBe(before.nonce)
    expect(await chains.base.balanceOf(payer.address)).toBe(before.payer)

    const payerOnSepolia = await chains.sepolia.balanceOf(payer.address)
    expect((await refundOf(sepolia)).refund.status).toBe("completed")
    expect(await chains.sepolia.balanceOf(payer.address)).toBe(payerOnSepolia + amount)
  })

  it("a transfer on Base to a sandbox payment's Base deposit address is never followed nor swept; its Base Sepolia address pays it", async () => {
    const paymentId = await paymentOf("sandbox")
    const deposit = await gateway("sandbox", "POST", `/v1/gateway/payment/${paymentId}/deposit`)
    const own = deposit.body.options[0]
    const onBase = DepositAddresses.depositAddress(chains.base.depositFactory, paymentId)
    await sendTokenTransfer({ rpcUrl: chains.base.rpcUrl, privateKey: payer.privateKey, token: base.usdc, to: onBase, value: amount })
    await sendTokenTransfer({ rpcUrl: chains.sepolia.rpcUrl, privateKey: payer.privateKey, token: sepolia.usdc, to: own.address, value: amount })
    await eventually(() => record("sandbox", paymentId), (r) => r.status === "succeeded")
    await eventually(() => chains.sepolia.balanceOf(own.address), (balance) => balance === 0n)
    // Sweeps run often: had Base's address been followed, it would have been emptied by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await chains.base.balanceOf(onBase)).toBe(amount)
    expect((await record("sandbox", paymentId)).transaction.hash).not.toBeNull()
  })

  it("a deployment with only Base (a real network) refuses sandbox payments at creation; live ones are created", async () => {
    const baseOnly = await serverFor("base")
    try {
      const owner = await baseOnly.partner()
      const create = async (apiKey: string) =>
        baseOnly.request("POST", "/v1/payments", {
          apiKey,
          body: { merchantId: await baseOnly.merchant(apiKey), amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "order-1" }
        })
      const refused = await create(owner.sandbox)
      expect(refused.status).toBe(400)
      expect(refused.body.code).toBe("params_validation")
      expect(refused.body.message).toMatch(/^This service accepts no token on a test network, so a sandbox payment could never be paid/)
      const listed = await baseOnly.request("GET", "/v1/payments", { apiKey: owner.sandbox })
      expect(listed.body.data).toEqual([])
      expect((await create(owner.live)).status).toBe(201)
    } finally {
      await baseOnly.close()
    }
  })
})
