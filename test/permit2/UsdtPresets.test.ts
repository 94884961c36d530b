/**
 * USDT of the named networks without the internet: anvils at the real chain ids of Ethereum (1) and
 * Polygon (137), the test tokens' code at the presets' real USDC and USDT addresses, Permit2 at its
 * canonical address, and the service configured only with `PAYGATE_NETWORKS=ethereum,polygon`. Each
 * network offers USDT (6 decimals, through Permit2) beside USDC, and a USDT payment is paid on each:
 * approve, permit, the executor's `permitTransferFrom`.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { ConfigProvider, Effect, Fiber, Layer, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createWalletClient, encodeFunctionData, type Hex, http, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob } from "../support/ChainJobs.ts"
import { closeServerThenChains, type PresetChain, presetChain } from "../support/PresetChain.ts"
import { makeTestServer, pglite, type TestServer } from "../support/TestServer.ts"

const { anvilAccount, ChainSource, Contracts, LocalWallet, NetworkPresets, Permit2 } = Chain

const executor = anvilAccount(0)
const collection = anvilAccount(9)
const payer = anvilAccount(6)
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

const networks = { ethereum: NetworkPresets.presets.ethereum, polygon: NetworkPresets.presets.polygon }
const usdt = {
  ethereum: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
  polygon: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"
} as const

/** The preset chain, with TestUsdt's code at `address` (owner anvil #0, who mints the payer 1,000 USDT). */
const withUsdt = async (chain: PresetChain, address: Hex, template: Hex) => {
  const request = (method: string, params: ReadonlyArray<unknown>) => chain.client.request({ method: method as never, params: params as never })
  await request("anvil_setCode", [address, await chain.client.getCode({ address: template })])
  // Storage slot 0 is the token's owner, who may mint.
  await request("anvil_setStorageAt", [address, "0x0", `0x${executor.address.slice(2).padStart(64, "0")}`])
  const owner = createWalletClient({ account: privateKeyToAccount(executor.privateKey), transport: http(chain.rpcUrl) })
  const hash = await owner.sendTransaction({
    chain: null,
    to: address,
    data: encodeFunctionData({ abi: Contracts.TestUsdt.abi, functionName: "mint", args: [payer.address, 1_000_000_000n] })
  })
  await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

describe("USDT presets (anvil at the real chain ids)", () => {
  const scope = Effect.runSync(Scope.make())
  const chains: Partial<Record<keyof typeof networks, PresetChain>> = {}
  let server: TestServer
  let executorFiber: Fiber.Fiber<unknown, unknown>

  beforeAll(async () => {
    for (const name of ["ethereum", "polygon"] as const) {
      // LocalChain deployed TestUsdt and placed Permit2 at its canonical address.
      chains[name] = await presetChain(scope, networks[name].chainNumber, networks[name].usdc, [payer.address])
    }
    const keyFile = join(mkdtempSync(join(tmpdir(), "paygate-keys-")), "executor.key")
    writeFileSync(keyFile, `${executor.privateKey}\n`)
    const env = {
      PAYGATE_NETWORKS: "ethereum,polygon",
      PAYGATE_RPC_ETHEREUM: chains.ethereum!.rpcUrl,
      PAYGATE_RPC_POLYGON: chains.polygon!.rpcUrl,
      PAYGATE_EXECUTOR_KEY_FILE: keyFile,
      PAYGATE_COLLECTION_ADDRESS: collection.address
    }
    server = await makeTestServer(pglite, {
      gateway: GatewayServices.settings({
        chains: Layer.orDie(ChainSource.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))),
        secret: new Uint8Array(randomBytes(32))
      })
    })
    executorFiber = await server.run(Effect.forkDetach(Layer.launch(executorJob)))
  }, 180_000)
  afterAll(async () => {
    if (executorFiber !== undefined) await Effect.runPromise(Fiber.interrupt(executorFiber))
    await closeServerThenChains(server, scope)
  })

  it("each network offers USDT at its real address (6 decimals, Permit2) beside USDC, and a USDT payment is paid on each", async () => {
    const partner = await server.partner()
    const merchantId = await server.merchant(partner.live)
    const walletKey = await server.walletKey("live")
    const gateway = (method: string, path: string, body?: unknown) =>
      server.request(method, path, { apiKey: walletKey, ...(body === undefined ? {} : { body }) })

    for (const name of ["ethereum", "polygon"] as const) {
      const preset = networks[name]
      const chain = chains[name]!
      await withUsdt(chain, usdt[name], chain.testUsdt)
      const payment = await server.payment(partner.live, merchantId)
      const options = await gateway("POST", `/v1/gateway/payment/${payment.paymentId}/options`, {
        accounts: [`eip155:${preset.chainNumber}:${payer.address}`]
      })
      expect(options.status).toBe(200)
      expect(options.body.options.map((o: any) => [o.amount.unit, o.amount.display.assetSymbol, o.amount.display.decimals])).toEqual([
        [`caip19/eip155:${preset.chainNumber}/erc20:${preset.usdc}`, "USDC", 6],
        [`caip19/eip155:${preset.chainNumber}/erc20:${usdt[name]}`, "USDT", 6]
      ])
      const option = options.body.options[1]
      expect(option.actions.map((a: any) => a.data.method)).toEqual(["eth_sendTransaction", "eth_signTypedData_v4"])
      const typed = JSON.parse(option.actions[1].data.params[1])
      expect(typed.domain).toEqual({ name: "Permit2", chainId: preset.chainNumber, verifyingContract: Permit2.permit2Address })
      // The wallet: the approve, mined, then the permit.
      const wallet = createWalletClient({ account: privateKeyToAccount(payer.privateKey), transport: http(chain.rpcUrl) })
      const approve = await wallet.sendTransaction({ chain: null, to: option.actions[0].data.params[0].to, data: option.actions[0].data.params[0].data })
      await chain.client.waitForTransactionReceipt({ hash: approve, pollingInterval: 50 })
      const signature = await LocalWallet.signOption(option, payer.privateKey)
      const before = await chain.client.readContract({ address: usdt[name], abi: erc20, functionName: "balanceOf", args: [collection.address] })
      const confirmed = await gateway("POST", `/v1/gateway/payment/${payment.paymentId}/confirm`, {
        optionId: option.id,
        results: [{ type: "walletRpc", data: [approve] }, { type: "walletRpc", data: [signature] }],
        collectedData: null
      })
      expect(confirmed.status).toBe(200)
      const deadline = Date.now() + 90_000
      for (;;) {
        const status = await gateway("GET", `/v1/gateway/payment/${payment.paymentId}/status?maxPollMs=1000`)
        if (status.body.status === "succeeded") break
        if (Date.now() > deadline) throw new Error(`${name}: ${payment.paymentId} is ${status.body.status}`)
      }
      expect(await chain.client.readContract({ address: usdt[name], abi: erc20, functionName: "balanceOf", args: [collection.address] }))
        .toBe(before + 12_500_000n)
    }
  }, 240_000)
})
