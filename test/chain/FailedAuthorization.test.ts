/**
 * A pull payment whose transfer cannot go through (the buyer's balance is short when the executor
 * tries) must never leave a live authorization behind: its signature is public, and anyone can send
 * it once the buyer has funds again. End to end on a real anvil chain with the worker's executor:
 * the payment stays `processing` while the authorization is valid, the buyer's money moved by
 * anyone's use of it pays the payment (never kept while the payment is failed), and the payment
 * fails only once the chain is past `validBefore` with the authorization unused.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { Effect, Fiber, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { createTestClient, createWalletClient, encodeFunctionData, erc20Abi, getAddress, type Hex, http } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { executorJob } from "../support/ChainJobs.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type TestPartner, useTestServer } from "../support/TestServer.ts"

const { anvilAccount, ChainConfig } = Chain
const amount = 12_500_000n
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

forEachDatabase("A failed pull payment leaves no live authorization (anvil)", (database) => {
  // An anvil of its own: the last test moves the chain's clock past the authorizations' expiry.
  const world = localChainForFile()
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(world().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let merchantId: string
  let walletKey: string
  let executor: Fiber.Fiber<unknown, unknown>

  beforeAll(async () => {
    executor = await server.run(Effect.forkDetach(Layer.launch(executorJob)))
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Corner Coffee")
    walletKey = await server.walletKey("sandbox")
  }, 120_000)

  afterAll(async () => {
    await Effect.runPromise(Fiber.interrupt(executor))
  })

  const chain = () => world().chain
  const rpc = () => http(chain().node.rpcUrl)
  const anvil = () => createTestClient({ mode: "anvil", transport: rpc() })
  const call = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: walletKey, headers: { "sdk-name": "Test Wallet" }, ...(body === undefined ? {} : { body }) })
  const status = async (paymentId: string) => (await call("GET", `/v1/gateway/payment/${paymentId}/status`)).body.status as string
  const waitFor = async (paymentId: string, wanted: string, withinMs = 30_000) => {
    const deadline = Date.now() + withinMs
    for (;;) {
      const response = await call("GET", `/v1/gateway/payment/${paymentId}/status?maxPollMs=1000`)
      if (response.body.status === wanted) return
      if (Date.now() > deadline) throw new Error(`payment ${paymentId} is ${response.body.status}, not ${wanted}`)
    }
  }

  /** A sender of raw transactions from `privateKey` (not waiting for them to be mined). */
  const sender = (privateKey: Hex) => createWalletClient({ account: privateKeyToAccount(privateKey), transport: rpc() })
  const transferData = (to: Hex, value: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] })
  /** Sends with `tip` times the usual fees: a block orders its transactions by tip. */
  const send = async (privateKey: Hex, to: Hex, data: Hex, tip: bigint) => {
    const fees = await world().client.estimateFeesPerGas()
    return sender(privateKey).sendTransaction({
      chain: null,
      to,
      data,
      gas: 200_000n,
      maxFeePerGas: fees.maxFeePerGas * tip,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas * tip
    })
  }
  /** Sends TUSDC from anvil #8, first in its block (not waiting: with automine off it is mined with the next block). */
  const fund = (to: Hex, value: bigint) => send(anvilAccount(8).privateKey, chain().contracts.usdc, transferData(to, value), 8n)
  const mined = async (hash: Hex) => world().client.waitForTransactionReceipt({ hash, pollingInterval: 50 })

  /**
   * A payment confirmed by a fresh buyer holding `funded` TUSDC; answers what anyone who saw the
   * signature (it is public once sent) needs to send the authorization: its calldata.
   */
  const confirmedBy = async (funded: bigint) => {
    const key = generatePrivateKey()
    const buyer = privateKeyToAccount(key)
    if (funded > 0n) await mined(await fund(buyer.address, funded))
    const created = await server.request("POST", "/v1/payments", {
      apiKey: partner.sandbox,
      body: { merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: `order-${randomBytes(4).toString("hex")}` }
    })
    const paymentId = created.body.paymentId as string
    const options = await call("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [`${chain().chainId}:${buyer.address}`] })
    const [option] = options.body.options
    const signature = await Chain.LocalWallet.signOption(option, key)
    const { message } = JSON.parse(option.actions[0].data.params[1])
    expect(BigInt(message.value)).toBe(amount)
    const calldata = Chain.authorizationCalldata(
      {
        _tag: "Authorization",
        account: `${chain().chainId}:${buyer.address}`,
        asset: chain().usdcAssetId,
        to: chain().collectionAddress,
        value: amount,
        validBefore: Number(message.validBefore),
        nonce: message.nonce,
        signature
      },
      buyer.address,
      getAddress(message.to)
    )
    if (calldata._tag !== "Success") throw new Error(calldata.failure)
    const confirmed = await call("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId: option.id,
      results: [{ type: "walletRpc", data: [signature] }],
      collectedData: null
    })
    expect(confirmed.body.status).toBe("processing")
    return { paymentId, key, buyer: buyer.address, calldata: calldata.success, validBefore: Number(message.validBefore) }
  }

  /** A third party (anvil #7) sends the authorization, after a funding but ahead of the executor in its block. */
  const thirdPartySends = (calldata: Hex) => send(anvilAccount(7).privateKey, chain().contracts.usdc, calldata, 4n)

  /** The buyer is funded and a third party sends the authorization in the same block. */
  const fundedAndSentByThirdParty = async (buyer: Hex, calldata: Hex) => {
    await anvil().setAutomine(false)
    try {
      await fund(buyer, amount)
      const hash = await thirdPartySends(calldata)
      await anvil().mine({ blocks: 1 })
      return hash
    } finally {
      await anvil().setAutomine(true)
    }
  }

  it("buyer short → the executor's transfer cannot go through → buyer funded → a third party sends the authorization: the buyer's money pays the payment", async () => {
    const collection = await world().balanceOf(chain().collectionAddress)
    const { paymentId, buyer, calldata } = await confirmedBy(5_000_000n)
    // Several executor rounds meet the short balance: the payment does not fail, the authorization is live.
    await sleep(2_000)
    expect(await status(paymentId)).toBe("processing")

    const hash = await fundedAndSentByThirdParty(buyer, calldata)
    expect((await mined(hash)).status).toBe("success")
    await waitFor(paymentId, "succeeded")
    expect(await world().balanceOf(buyer)).toBe(5_000_000n)
    expect(await world().balanceOf(chain().collectionAddress)).toBe(collection + amount)
  })

  it("the executor's transfer reverts on chain (the buyer moved its funds before it was mined): the payment stays processing, and a later use of the authorization pays it", async () => {
    const collection = await world().balanceOf(chain().collectionAddress)
    const { paymentId, key, buyer, calldata } = await confirmedBy(amount)
    await anvil().setBalance({ address: buyer, value: 10n ** 18n })
    const { client } = world()
    const sent = await client.getTransactionCount({ address: chain().executorAddress })
    await anvil().setAutomine(false)
    let executorTx: Hex | undefined
    try {
      // The executor simulated it with the buyer funded and sent it; before it is mined the buyer
      // moves everything away, at a higher tip, in the same block.
      const deadline = Date.now() + 10_000
      while (await client.getTransactionCount({ address: chain().executorAddress, blockTag: "pending" }) === sent) {
        if (Date.now() > deadline) throw new Error("the executor sent nothing")
        await sleep(50)
      }
      await send(key, chain().contracts.usdc, transferData(anvilAccount(8).address, amount), 4n)
      await anvil().mine({ blocks: 1 })
      const block = await client.getBlock({ includeTransactions: true })
      executorTx = block.transactions.find((tx) => tx.from.toLowerCase() === chain().executorAddress.toLowerCase())?.hash
    } finally {
      await anvil().setAutomine(true)
    }
    expect(executorTx).toBeDefined()
    expect((await mined(executorTx!)).status, "the executor's transfer reverted on chain").toBe("reverted")
    await sleep(2_000)
    expect(await status(paymentId)).toBe("processing")

    const hash = await fundedAndSentByThirdParty(buyer, calldata)
    expect((await mined(hash)).status).toBe("success")
    await waitFor(paymentId, "succeeded")
    expect(await world().balanceOf(buyer)).toBe(0n)
    expect(await world().balanceOf(chain().collectionAddress)).toBe(collection + amount)
  })

  it("a buyer never funded: nothing is sent while the authorization is valid, and the payment fails once the chain is past validBefore", async () => {
    const { client } = world()
    const { paymentId, buyer, calldata, validBefore } = await confirmedBy(0n)
    const sent = await client.getTransactionCount({ address: chain().executorAddress })
    await sleep(2_000)
    expect(await status(paymentId)).toBe("processing")
    expect(await client.getTransactionCount({ address: chain().executorAddress }), "nothing sent that would revert").toBe(sent)

    await anvil().setNextBlockTimestamp({ timestamp: BigInt(validBefore) })
    await anvil().mine({ blocks: 1 })
    await waitFor(paymentId, "failed")
    // Dead for good: funded now, the authorization moves nothing.
    await mined(await fund(buyer, amount))
    expect((await mined(await thirdPartySends(calldata))).status).toBe("reverted")
    expect(await world().balanceOf(buyer)).toBe(amount)
  })
})
