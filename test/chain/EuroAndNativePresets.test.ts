/**
 * EURC and ether by network name, without the internet: anvils at the real chain ids of Base (8453)
 * and Ethereum (1), the test token's code at each preset's real USDC and EURC addresses and the
 * test feed's code at Base's real Chainlink ETH / USD address, and the service configured only with
 * `PAYGATE_NETWORKS=base,ethereum`. A EUR payment is offered EURC alone on each network (at 1:1, no
 * quote expiry) and paid with it; a USD payment on Base is offered ether priced by the feed, paid
 * with one `eth_sendTransaction`. Ethereum's feed address holds no code here: its ether is not
 * offered (no price, no option), never priced wrong.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { ConfigProvider, Effect, Fiber, Layer, Logger, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { createWalletClient, type Hex, http, numberToHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob } from "../support/ChainJobs.ts"
import { closeServerThenChains, type PresetChain, presetChain } from "../support/PresetChain.ts"
import { makeTestServer, pglite, type TestServer } from "../support/TestServer.ts"

const { anvilAccount, ChainSource, NativePresets, NetworkPresets, StablecoinPresets } = Chain

const executor = anvilAccount(0)
const collection = anvilAccount(9)
const payer = anvilAccount(6)
const base = NetworkPresets.presets.base
const ethereum = NetworkPresets.presets.ethereum
// Ethereum's preset takes USDT too (through Permit2): its token is placed at its real address.
const usdtOnEthereum: Hex = "0xdAC17F958D2ee523a2206206994597C13D831ec7"
const eurc = {
  base: StablecoinPresets.stablecoinPresets.base![0]!.address,
  ethereum: StablecoinPresets.stablecoinPresets.ethereum![0]!.address
}
const baseEthFeed = NativePresets.nativePresets.base!.usdFeed

describe("EURC and ether presets (anvil at the real chain ids and addresses)", () => {
  const scope = Effect.runSync(Scope.make())
  let chains: { readonly base: PresetChain; readonly ethereum: PresetChain }
  let server: TestServer
  let executorFiber: Fiber.Fiber<unknown, unknown>

  beforeAll(async () => {
    chains = {
      // 3,000 USD per ETH, 8 decimals as Chainlink's USD feeds.
      base: await presetChain(scope, base.chainNumber, base.usdc, [payer.address], {
        tokens: [eurc.base],
        feeds: [{ address: baseEthFeed, answer: 3_000n * 10n ** 8n }]
      }),
      ethereum: await presetChain(scope, ethereum.chainNumber, ethereum.usdc, [payer.address], { tokens: [eurc.ethereum, usdtOnEthereum] })
    }
    const env = {
      PAYGATE_NETWORKS: "base,ethereum",
      PAYGATE_RPC_BASE: chains.base.rpcUrl,
      PAYGATE_RPC_ETHEREUM: chains.ethereum.rpcUrl,
      PAYGATE_EXECUTOR_KEY: executor.privateKey,
      PAYGATE_COLLECTION_ADDRESS: collection.address
    }
    const quiet = Logger.layer([Logger.make(() => {})])
    const chainsLayer = ChainSource.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))), Layer.provide(quiet))
    server = await makeTestServer(pglite, {
      gateway: GatewayServices.settings({ chains: Layer.orDie(chainsLayer), secret: new Uint8Array(randomBytes(32)) })
    })
    executorFiber = await server.run(Effect.forkDetach(Layer.launch(executorJob)))
  }, 240_000)

  afterAll(async () => {
    if (executorFiber !== undefined) await Effect.runPromise(Fiber.interrupt(executorFiber))
    await closeServerThenChains(server, scope)
  })

  const accounts = [`eip155:${base.chainNumber}:${payer.address}`, `eip155:${ethereum.chainNumber}:${payer.address}`]

  const setUp = async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.live)
    const walletKey = await server.walletKey("live")
    const gateway = (method: string, path: string, body?: unknown) =>
      server.request(method, path, { apiKey: walletKey, ...(body === undefined ? {} : { body }) })
    const create = async (currency: string, value: string) => {
      const created = await server.request("POST", "/v1/merchant/payment", {
        apiKey: partner.live,
        headers: { "merchant-id": merchantId },
        body: { amount: { unit: `iso4217/${currency}`, value }, referenceId: `preset-${randomBytes(4).toString("hex")}` }
      })
      expect(created.status).toBe(200)
      return created.body.paymentId as string
    }
    const succeeded = async (paymentId: string) => {
      const deadline = Date.now() + 60_000
      for (;;) {
        const status = await gateway("GET", `/v1/gateway/payment/${paymentId}/status?maxPollMs=1000`)
        if (status.body.status === "succeeded") return
        if (Date.now() > deadline) throw new Error(`${paymentId} is ${status.body.status}`)
      }
    }
    return { gateway, create, succeeded }
  }

  it("a EUR payment is offered EURC alone on Base and on Ethereum, at 1:1, and is paid with it on each", async () => {
    const { gateway, create, succeeded } = await setUp()
    for (const [network, chainNumber] of [["base", base.chainNumber], ["ethereum", ethereum.chainNumber]] as const) {
      const paymentId = await create("EUR", "1250")
      const options = await gateway("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts })
      expect(options.status).toBe(200)
      expect(options.body.options.map((o: any) => [o.amount.unit, o.amount.value, o.amount.display.assetSymbol, o.expiresAt])).toEqual([
        [`caip19/eip155:${base.chainNumber}/erc20:${eurc.base}`, "12500000", "EURC", null],
        [`caip19/eip155:${ethereum.chainNumber}/erc20:${eurc.ethereum}`, "12500000", "EURC", null]
      ])
      const option = options.body.options.find((o: any) => o.account.startsWith(`eip155:${chainNumber}:`))
      // The EIP-712 domain is the token's own, at its real address and chain id.
      const typed = JSON.parse(option.actions[0].data.params[1])
      expect(typed.domain).toMatchObject({ chainId: chainNumber, verifyingContract: eurc[network] })
      const before = await chains[network].balanceAt(eurc[network], collection.address)
      const signature = await Chain.LocalWallet.signOption(option, payer.privateKey)
      const confirmed = await gateway("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
        optionId: option.id,
        results: [{ type: "walletRpc", data: [signature] }],
        collectedData: null
      })
      expect(confirmed.status).toBe(200)
      await succeeded(paymentId)
      expect(await chains[network].balanceAt(eurc[network], collection.address)).toBe(before + 12_500_000n)
    }
  }, 180_000)

  it("a USD payment on Base is offered ether priced by the ETH / USD feed at its real address, paid with one eth_sendTransaction", async () => {
    const { gateway, create, succeeded } = await setUp()
    const paymentId = await create("USD", "1050")
    const options = await gateway("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts })
    expect(options.status).toBe(200)
    // USDC on both (and USDT on Ethereum); ether on Base only (Ethereum's feed has no code on this anvil: no price, no option).
    expect(options.body.options.map((o: any) => o.amount.unit)).toEqual([
      `caip19/eip155:${base.chainNumber}/erc20:${base.usdc}`,
      `caip19/eip155:${base.chainNumber}/slip44:60`,
      `caip19/eip155:${ethereum.chainNumber}/erc20:${ethereum.usdc}`,
      `caip19/eip155:${ethereum.chainNumber}/erc20:${usdtOnEthereum}`
    ])
    const option = options.body.options[1]
    // 10.50 USD at 3,000 USD per ETH: 0.0035 ETH, with a quote expiry.
    const wei = 3_500_000_000_000_000n
    expect(option.amount).toMatchObject({ value: wei.toString(), display: { assetSymbol: "ETH", decimals: 18 } })
    expect(option.expiresAt).toEqual(expect.any(Number))
    const [tx] = option.actions[0].data.params as [{ to: Hex; value: Hex; data: Hex }]
    expect(option.actions[0].data).toMatchObject({ chain_id: `eip155:${base.chainNumber}`, method: "eth_sendTransaction" })
    expect(tx).toMatchObject({ to: collection.address, value: numberToHex(wei) })
    const wallet = createWalletClient({ account: privateKeyToAccount(payer.privateKey), transport: http(chains.base.rpcUrl) })
    const hash = await wallet.sendTransaction({ chain: null, to: tx.to, value: BigInt(tx.value), data: tx.data })
    const confirmed = await gateway("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId: option.id,
      results: [{ type: "walletRpc", data: [hash] }],
      collectedData: null
    })
    expect(confirmed.status).toBe(200)
    await succeeded(paymentId)
  }, 120_000)
})
