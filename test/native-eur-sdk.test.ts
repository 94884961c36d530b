/**
 * Native ether and euro payments as a wallet makes them: the published `@walletconnect/pay` client
 * against `npm start` (worker in process), configured with `PAYGATE_CHAINS` on a local chain that
 * accepts TUSDC, TEURC (pegged to EUR) and its ether TETH (priced in USD by the test feed, 2,000
 * USD per TETH). The wallet is viem with anvil's well-known keys.
 *
 * - An ETH payment: one `eth_sendTransaction` with value, confirmed with its hash, to `succeeded`
 *   with verified webhooks and the merchant's settlement in ether.
 * - No deposit address for ether: the deposit options and their QR codes are the tokens' alone.
 * - A EUR payment: the TEURC option alone (no USD coin, no ether for EUR), signed, to `succeeded`.
 * - Refusals of a native confirm, each `params_validation`: too little value, another recipient,
 *   no reference, another sender, a reverted transaction, an unknown hash. The transfer of too little is then a
 *   receipt `underpaid`, and a second transfer of the rest pays the payment.
 * - A transaction not mined yet is accepted but `processing` until it is included.
 * - A transfer to a cancelled payment is a `late` receipt; the payment stays cancelled.
 * - A native transfer made while the service is down is found after it restarts.
 */
import { Chain } from "@paygate/adapters"
import { WalletConnectPay } from "@walletconnect/pay"
import type { Action } from "@walletconnect/pay"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPublicClient, createWalletClient, type Hex, http, numberToHex, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/Eventually.ts"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { spawnNpmStart, waitForOutput } from "./support/NpmStart.ts"
import { type Receiver, startReceiver } from "./support/Receiver.ts"
import { freePort, serviceRoot } from "./support/ServiceProcess.ts"

const { anvilAccount, LocalChain } = Chain
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

interface Service {
  readonly url: string
  readonly credentials: { readonly apiKey: string; readonly merchantId: string; readonly appId: string }
  readonly stop: () => Promise<void>
}

/** `npm start` on `dataDir`; the sandbox credentials are printed on the first start only (`known` on a restart). */
const startService = async (env: Record<string, string>, known?: Service["credentials"]): Promise<Service> => {
  const port = await freePort()
  const started = spawnNpmStart({ ...env, PORT: String(port) }, serviceRoot)
  await waitForOutput(started, "Create a payment:", 300_000)
  const output = started.output()
  const grab = (pattern: RegExp) => {
    const found = pattern.exec(output)?.[1]
    if (found === undefined) throw new Error(`${pattern} not in the start output:\n${output.slice(-4_000)}`)
    return found
  }
  return {
    url: `http://127.0.0.1:${port}`,
    credentials: known ?? {
      apiKey: grab(/Api-Key\s+(sk_test_\S+)/),
      merchantId: grab(/Merchant-Id\s+(mer_\S+)/),
      appId: grab(/App-Id\s+(app_\S+)/)
    },
    stop: started.stop
  }
}

describe("@walletconnect/pay: ether and euro payments against npm start", () => {
  const scope = Effect.runSync(Scope.make())
  let chain: Chain.LocalChain.LocalChainInfo
  let client: ReturnType<typeof createPublicClient>
  let service: Service
  let receiver: Receiver
  let dir: string
  let env: Record<string, string>
  const destination = privateKeyToAccount(`0x${randomBytes(32).toString("hex")}`).address

  beforeAll(async () => {
    const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer({ native: true }), scope))
    chain = Context.get(context, LocalChain.LocalChain)
    client = createPublicClient({ transport: http(chain.node.rpcUrl) })
    dir = await mkdtemp(join(tmpdir(), "paygate-native-"))
    env = {
      PAYGATE_DATA_DIR: join(dir, "pglite"),
      PAYGATE_CHAINS: JSON.stringify(LocalChain.settingsFor(chain, 1, { eur: true, native: true })),
      WEBHOOK_ALLOW_PRIVATE: "true",
      WATCHER_POLL_MS: "300"
    }
    await copyMigratedDatabase(env.PAYGATE_DATA_DIR!, serviceRoot)
    service = await startService(env)
    receiver = await startReceiver()
  }, 400_000)

  afterAll(async () => {
    await service?.stop()
    await receiver?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  const partner = (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        "api-key": service.credentials.apiKey,
        ...(path.startsWith("/v1/merchant/") ? { "merchant-id": service.credentials.merchantId } : {}),
        "content-type": "application/json"
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
  const createPayment = async (currency: string, value: string) => {
    const created = await partner("POST", "/v1/merchant/payment", { amount: { unit: `iso4217/${currency}`, value }, referenceId: `n-${randomBytes(4).toString("hex")}` })
    expect(created.status).toBe(200)
    return created.body.paymentId as string
  }
  const record = async (paymentId: string) => (await partner("GET", `/v1/payments/${paymentId}`)).body
  const receipts = async (paymentId: string) => (await partner("GET", `/v1/receipts?paymentId=${paymentId}`)).body.data as Array<any>
  const gateway = (paymentId: string, path: string, body?: unknown) =>
    fetch(`${service.url}/v1/gateway/payment/${paymentId}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "app-id": service.credentials.appId, "client-id": "native-test", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
  const pay = () => new WalletConnectPay({ appId: service.credentials.appId, clientId: `native-${randomBytes(3).toString("hex")}`, baseUrl: service.url, logger: "silent" })

  const wallet = (index: number) => {
    const account = privateKeyToAccount(anvilAccount(index).privateKey)
    const sender = createWalletClient({ account, transport: http(chain.node.rpcUrl) })
    const send = (tx: { to: Hex; value: bigint; data?: Hex; gas?: bigint }) => sender.sendTransaction({ chain: null, ...tx })
    return {
      address: account.address,
      caip10: `${chain.chainId}:${account.address}`,
      send,
      perform: async (action: Action): Promise<string> => {
        const { method, params } = action.walletRpc
        const parsed = JSON.parse(params)
        if (method === "eth_signTypedData_v4") {
          const typed = JSON.parse(parsed[1])
          const { EIP712Domain: _domain, ...types } = typed.types
          return account.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message })
        }
        const [tx] = parsed as [{ from: string; to: Hex; data: Hex; value: Hex }]
        expect(tx.from.toLowerCase()).toBe(account.address.toLowerCase())
        return send({ to: tx.to, data: tx.data, value: BigInt(tx.value) })
      }
    }
  }
  const mined = (hash: Hex) => client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  /** The native option of a USD payment for `buyer` (raw wire, as the service answers it). */
  const nativeOption = async (paymentId: string, account: string) => {
    const answer = await gateway(paymentId, "/options", { accounts: [account], refresh: null })
    expect(answer.status).toBe(200)
    return answer.body.options.find((o: any) => o.amount.unit === `caip19/${chain.nativeAssetId}`)
  }
  const confirm = (paymentId: string, optionId: string, hash: string) =>
    gateway(paymentId, "/confirm", { optionId, results: [{ type: "walletRpc", data: [hash] }], collectedData: null })

  it("pays an ETH payment: one eth_sendTransaction with value, confirmed with its hash, to succeeded with webhooks and settlement", async () => {
    const registered = await partner("POST", "/v1/webhooks", { url: receiver.url("/hooks") })
    expect(registered.status).toBe(201)
    receiver.expect("/hooks", registered.body.secret)
    const settlement = await partner("POST", `/v1/merchants/${service.credentials.merchantId}/settlements/crypto`, {
      settlements: [{ asset: chain.nativeAssetId, destination: `${chain.chainId}:${destination}` }]
    })
    expect(settlement.status).toBe(201)

    const paymentId = await createPayment("USD", "1050")
    const buyer = wallet(1)
    const sdk = pay()
    const { options } = await sdk.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] })
    // TUSDC and TETH; TEURC is not priced in USD.
    expect(options.map((o) => o.amount.display.assetSymbol).sort()).toEqual(["TETH", "TUSDC"])
    const option = options.find((o) => o.amount.display.assetSymbol === "TETH")!
    // 10.50 USD at 2,000 USD per TETH: 0.00525 TETH, in wei.
    const wei = 5_250_000_000_000_000n
    expect(option).toMatchObject({
      amount: { unit: `caip19/${chain.nativeAssetId}`, value: wei.toString(), display: { assetSymbol: "TETH", decimals: 18 } },
      actions: [{ walletRpc: { chainId: chain.chainId, method: "eth_sendTransaction" } }]
    })
    expect(JSON.parse(option.actions[0]!.walletRpc.params)).toEqual([
      { from: buyer.address, to: chain.collectionAddress, value: numberToHex(wei), data: expect.stringMatching(/^0x[0-9a-f]{32}$/) }
    ])
    const actions = await sdk.getRequiredPaymentActions({ paymentId, optionId: option.id })
    expect(actions).toHaveLength(1)
    const hash = await buyer.perform(actions[0]!)
    const result = await sdk.confirmPayment({ paymentId, optionId: option.id, signatures: [hash] })
    expect(result).toMatchObject({ status: "succeeded", isFinal: true })
    const sent = await client.getTransaction({ hash: hash as Hex })
    expect({ to: sent.to, value: sent.value }).toEqual({ to: chain.collectionAddress.toLowerCase(), value: wei })

    // Settled in ether to the merchant's destination, with payment.settled.
    const settled = await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed", 60_000)
    expect(await client.getBalance({ address: destination })).toBe(wei)
    const events = () => receiver.on("/hooks").filter((r) => r.body.includes(paymentId))
    await receiver.waitFor(() => events().some((r) => r.envelope?.type === "payment.settled"), 60_000, "payment.settled")
    expect(events().every((r) => r.verified)).toBe(true)
    expect(new Set(events().map((r) => r.envelope.type))).toEqual(new Set(["payment.created", "payment.processing", "payment.succeeded", "payment.settled"]))
    expect(settled.transaction).toMatchObject({ hash: hash.toLowerCase() })
  }, 400_000)

  it("offers ether at the deposit address too, with its EIP-681 value request and its QR code", async () => {
    const paymentId = await createPayment("USD", "1050")
    // The wallet options do include ether.
    expect(await nativeOption(paymentId, wallet(3).caip10)).toBeDefined()
    const deposit = await fetch(`${service.url}/v1/gateway/payment/${paymentId}/deposit`, {
      method: "POST",
      headers: { "app-id": service.credentials.appId, "client-id": "native-test" }
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
    expect(deposit.status).toBe(200)
    const usdc = deposit.body.options.find((o: any) => o.asset === chain.usdcAssetId)
    const ether = deposit.body.options.find((o: any) => o.asset === chain.nativeAssetId)
    expect(ether.address).toBe(usdc.address)
    const qr = (asset: string) => fetch(`${service.url}/checkout/${paymentId}/deposit-qr.svg?asset=${encodeURIComponent(asset)}`)
    expect((await qr(chain.usdcAssetId)).status).toBe(200)
    expect(usdc.uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@31337\/transfer\?/)
    expect(ether.uri).toBe(`ethereum:${usdc.address}@31337?value=${ether.amount.value}`)
    expect((await qr(chain.nativeAssetId)).status).toBe(200)
  }, 60_000)

  it("pays a EUR payment with the euro test token: the TEURC option alone, signed, to succeeded", async () => {
    const paymentId = await createPayment("EUR", "1250")
    const buyer = wallet(2)
    const sdk = pay()
    const { options } = await sdk.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] })
    expect(options).toHaveLength(1)
    expect(options[0]).toMatchObject({
      amount: { unit: `caip19/${chain.eurcAssetId}`, value: "12500000", display: { assetSymbol: "TEURC", decimals: 6 } },
      // A stablecoin in the payment's own currency: no rate, no quote expiry.
      expiresAt: null,
      actions: [{ walletRpc: { method: "eth_signTypedData_v4" } }]
    })
    const eurc = chain.eurcAssetId.split(":").at(-1) as Hex
    const before = await client.readContract({ address: eurc, abi: erc20, functionName: "balanceOf", args: [buyer.address] })
    const actions = await sdk.getRequiredPaymentActions({ paymentId, optionId: options[0]!.id })
    const result = await sdk.confirmPayment({ paymentId, optionId: options[0]!.id, signatures: [await buyer.perform(actions[0]!)] })
    expect(result).toMatchObject({ status: "succeeded", isFinal: true })
    expect(await client.readContract({ address: eurc, abi: erc20, functionName: "balanceOf", args: [buyer.address] })).toBe(before - 12_500_000n)
  }, 120_000)

  it("refuses a native confirm that is not the option's transfer; the short transfer is underpaid and the rest pays it", async () => {
    const paymentId = await createPayment("USD", "2000")
    const buyer = wallet(3)
    const option = await nativeOption(paymentId, buyer.caip10)
    const { to, value, data } = option.actions[0].data.params[0] as { to: Hex; value: Hex; data: Hex }
    const wei = BigInt(value)
    const refused = async (hash: string, message: RegExp) => {
      const answer = await confirm(paymentId, option.id, hash)
      expect(answer).toMatchObject({ status: 400, body: { code: "params_validation", message: expect.stringMatching(message) } })
    }
    // Another recipient, no reference: never this payment's transfer.
    const elsewhere = await buyer.send({ to: anvilAccount(7).address, value: wei, data })
    await mined(elsewhere)
    await refused(elsewhere, /does not pay the collection address/)
    const plain = await buyer.send({ to, value: wei })
    await mined(plain)
    await refused(plain, /reference/)
    // A hash the chain does not know.
    await refused(`0x${randomBytes(32).toString("hex")}`, /not found on chain/)
    // A transaction that reverted: the collection address briefly holds code that reverts.
    await client.request({ method: "anvil_setCode" as never, params: [to, "0x60006000fd"] as never })
    const reverted = await buyer.send({ to, value: wei, data, gas: 100_000n })
    expect((await mined(reverted)).status).toBe("reverted")
    await client.request({ method: "anvil_setCode" as never, params: [to, "0x"] as never })
    await refused(reverted, /reverted/)
    expect((await record(paymentId)).status).toBe("requires_action")

    // One wei short: refused, then recorded by the watcher as underpaid; the payment keeps waiting.
    const short = await buyer.send({ to, value: wei - 1n, data })
    await mined(short)
    await refused(short, /value is not the option's amount/)
    const underpaid = await eventually(() => receipts(paymentId), (list) => list.length === 1, 30_000)
    expect(underpaid[0]).toMatchObject({ outcome: "underpaid", txHash: short.toLowerCase(), value: (wei - 1n).toString(), shortfall: "1" })
    expect((await record(paymentId)).status).toBe("requires_action")
    // The missing wei, with the same reference, completes it.
    await mined(await buyer.send({ to, value: 1n, data }))
    const paid = await eventually(() => record(paymentId), (r) => r.status === "succeeded", 30_000)
    expect(paid.status).toBe("succeeded")
  }, 400_000)

  it("refuses a confirm with another account's transfer; that transfer, carrying the reference, still pays the payment", async () => {
    const paymentId = await createPayment("USD", "300")
    const option = await nativeOption(paymentId, wallet(3).caip10)
    const { to, value, data } = option.actions[0].data.params[0] as { to: Hex; value: Hex; data: Hex }
    const other = await wallet(4).send({ to, value: BigInt(value), data })
    await mined(other)
    expect(await confirm(paymentId, option.id, other)).toMatchObject({
      status: 400,
      body: { code: "params_validation", message: expect.stringMatching(/not sent by the option's account/) }
    })
    // The money arrived with the payment's reference: the watcher records it as the payment's.
    expect((await eventually(() => record(paymentId), (r) => r.status === "succeeded", 30_000)).status).toBe("succeeded")
    expect(await receipts(paymentId)).toMatchObject([{ outcome: "paid", txHash: other.toLowerCase() }])
  }, 120_000)

  it("accepts a native transfer not mined yet, and succeeds only once it is included", async () => {
    const paymentId = await createPayment("USD", "500")
    const buyer = wallet(5)
    const option = await nativeOption(paymentId, buyer.caip10)
    const { to, value, data } = option.actions[0].data.params[0] as { to: Hex; value: Hex; data: Hex }
    await client.request({ method: "evm_setAutomine" as never, params: [false] as never })
    try {
      const hash = await buyer.send({ to, value: BigInt(value), data, gas: 50_000n })
      const accepted = await confirm(paymentId, option.id, hash)
      expect(accepted).toMatchObject({ status: 200, body: { status: "processing" } })
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      expect((await record(paymentId)).status).toBe("processing")
      await client.request({ method: "evm_mine" as never, params: [] as never })
    } finally {
      await client.request({ method: "evm_setAutomine" as never, params: [true] as never })
    }
    expect((await eventually(() => record(paymentId), (r) => r.status === "succeeded", 30_000)).status).toBe("succeeded")
  }, 120_000)

  it("a native transfer to a cancelled payment is a late receipt; the payment stays cancelled", async () => {
    const paymentId = await createPayment("USD", "700")
    const buyer = wallet(6)
    const option = await nativeOption(paymentId, buyer.caip10)
    const { to, value, data } = option.actions[0].data.params[0] as { to: Hex; value: Hex; data: Hex }
    expect((await gateway(paymentId, "/cancel", {})).status).toBe(200)
    const hash = await buyer.send({ to, value: BigInt(value), data })
    await mined(hash)
    expect(await confirm(paymentId, option.id, hash)).toMatchObject({ status: 409, body: { code: "invalid_state" } })
    const late = await eventually(() => receipts(paymentId), (list) => list.length === 1, 30_000)
    expect(late[0]).toMatchObject({ outcome: "late", txHash: hash.toLowerCase(), value: BigInt(value).toString() })
    expect((await record(paymentId)).status).toBe("cancelled")
  }, 120_000)

  it("finds a native transfer made while the service was down once it restarts", async () => {
    const paymentId = await createPayment("USD", "900")
    const buyer = wallet(8)
    const option = await nativeOption(paymentId, buyer.caip10)
    const { to, value, data } = option.actions[0].data.params[0] as { to: Hex; value: Hex; data: Hex }
    await service.stop()
    await mined(await buyer.send({ to, value: BigInt(value), data }))
    service = await startService(env, service.credentials)
    const paid = await eventually(() => record(paymentId), (r) => r.status === "succeeded", 60_000)
    expect(paid.status).toBe("succeeded")
    expect(await receipts(paymentId)).toMatchObject([{ outcome: "paid", value: BigInt(value).toString() }])
  }, 400_000)
})
