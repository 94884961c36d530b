/**
 * The wallet flow end to end on a real anvil chain, on PGlite and PostgreSQL: options → the wallet
 * signs the served EIP-3009 typed data (a viem local account) or sends the served transfer →
 * confirm → the executor (the worker's job, in-process here) submits and watches → succeeded,
 * with token balances checked on chain. Plus every confirm rule of API rules §10 and the chain
 * outcomes of §4: RPC outage → stays processing then succeeds (a transfer that cannot go through:
 * `FailedAuthorization.test.ts`).
 */
import { Chain, GatewayServices, SanctionsList } from "@paygate/adapters"
import { OptionIds } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Fiber, Layer } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { randomBytes } from "node:crypto"
import { createTestClient, createWalletClient, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { expectError } from "../support/ExpectError.ts"
import { executorJob } from "../support/ChainJobs.ts"
import type { CuttableProxy } from "../support/CuttableProxy.ts"
import { ownCollection } from "../support/OwnCollection.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type TestPartner, type TestServer, useTestServer } from "../support/TestServer.ts"

const { anvilAccount, ChainConfig } = Chain

const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const sanctioned = anvilAccount(5)

// One anvil for the file, reached through a proxy the RPC-outage test cuts.
const world = localChainForFile()
let chain: Chain.LocalChain.LocalChainInfo
let proxy: CuttableProxy

beforeAll(() => {
  ;({ chain, proxy } = world())
})

/** The local chain's configuration through the proxy: TUSDC pegged to USD, EUR priced by the test feed. */
const chainSettings = (pull: boolean) => {
  // The push gateway is a deployment of its own beside the pull one: it collects at an address of its own.
  const base = pull ? world().settings() : ownCollection(world().settings())
  return {
    chains: base.chains,
    assets: base.assets.map((a) => ({
      ...a,
      eip3009: pull,
      pricing: { kind: "peg", currency: "USD", fxFeeds: [{ currency: "EUR", address: chain.contracts.priceFeed }] }
    }))
  }
}

const balanceOf = (address: Hex) => world().balanceOf(address)

/** A wallet: signs the option's typed data. */
const signOption = Chain.LocalWallet.signOption

forEachDatabase("Gateway confirm and executor (anvil)", (database) => {
  const secret = new Uint8Array(randomBytes(32))
  const gateway = (pull: boolean) => () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(chainSettings(pull))),
      secret,
      sanctions: Layer.orDie(SanctionsList.layerFromText(`${sanctioned.address}\n`))
    })
  })
  const server = useTestServer(database, gateway(true))
  const pushServer = useTestServer(database, gateway(false))
  let partner: TestPartner
  let merchantId: string
  let walletKey: string
  let push: { readonly partner: TestPartner; readonly merchantId: string; readonly walletKey: string }
  const executors: Array<Fiber.Fiber<unknown, unknown>> = []

  const account = (index: number) => `${chain.chainId}:${anvilAccount(index).address}`
  const keyFor = (on: TestServer) => (on === pushServer ? push.walletKey : walletKey)
  const call = (on: TestServer, method: string, path: string, body?: unknown) =>
    on.request(method, path, { apiKey: keyFor(on), headers: { "sdk-name": "Test Wallet" }, ...(body === undefined ? {} : { body }) })
  const newPayment = async (value = "1250", currency = "USD") => {
    const response = await server.request("POST", "/v1/payments", {
      apiKey: partner.sandbox,
      body: { merchantId, amount: { unit: `iso4217/${currency}`, value }, referenceId: `order-${randomBytes(4).toString("hex")}` }
    })
    expect(response.status).toBe(201)
    return response.body.paymentId as string
  }
  const optionFor = async (paymentId: string, index: number, on: TestServer = server) => {
    const response = await call(on, "POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [account(index)] })
    expect(response.status).toBe(200)
    return response.body.options[0]
  }
  const confirm = (paymentId: string, optionId: string, result: string, on: TestServer = server) =>
    call(on, "POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId,
      results: [{ type: "walletRpc", data: [result] }],
      collectedData: null
    })
  /** Follows the status (long polls) until it is `status`; fails after `withinMs`. */
  const waitFor = async (paymentId: string, status: string, on: TestServer = server, withinMs = 30_000) => {
    const deadline = Date.now() + withinMs
    for (;;) {
      const response = await call(on, "GET", `/v1/gateway/payment/${paymentId}/status?maxPollMs=1000`)
      if (response.body.status === status) return response.body
      if (Date.now() > deadline) throw new Error(`payment ${paymentId} is ${response.body.status}, not ${status}`)
    }
  }
  /** An option id with these claims, signed with the server's secret (as the server would issue it). */
  const forge = (optionId: string, change: (claims: any) => any) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const ids = yield* OptionIds
        return yield* ids.issue(change(yield* ids.read(optionId)))
      }).pipe(
        Effect.provide(OptionIds.layer(secret).pipe(Layer.provide(Mac.layerWebCrypto))),
        Effect.provide(SecureRandom.layerWebCrypto)
      )
    )

  beforeAll(async () => {
    // The worker's executor over each server's database and chain gateway, checking often: two on
    // the pull server (as two worker processes would be), one on the push server.
    for (const on of [server, server, pushServer]) executors.push(await on.run(Effect.forkDetach(Layer.launch(executorJob))))
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Corner Coffee")
    walletKey = await server.walletKey("sandbox")
    const pushPartner = await pushServer.partner()
    push = {
      partner: pushPartner,
      merchantId: await pushServer.merchant(pushPartner.sandbox, "Push Shop"),
      walletKey: await pushServer.walletKey("sandbox")
    }
  }, 120_000)

  afterAll(async () => {
    for (const fiber of executors) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  it("pull payment: options → sign → confirm → processing → succeeded, the tokens moved on chain", async () => {
    const paymentId = await newPayment()
    const buyer = anvilAccount(1)
    const option = await optionFor(paymentId, 1)
    const before = { buyer: await balanceOf(buyer.address), collection: await balanceOf(chain.collectionAddress) }

    const confirmed = await confirm(paymentId, option.id, await signOption(option, buyer.privateKey))
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toEqual({
      status: "processing",
      isFinal: false,
      pollInMs: 1000,
      // API rules §10: no info until the executor has sent the transfer (txId is never null).
      info: null
    })
    expect(await waitFor(paymentId, "succeeded")).toEqual({ status: "succeeded", isFinal: true, pollInMs: null })
    expect(await balanceOf(buyer.address)).toBe(before.buyer - 12_500_000n)
    expect(await balanceOf(chain.collectionAddress)).toBe(before.collection + 12_500_000n)

    const info = await call(server, "GET", `/v1/gateway/payment/${paymentId}`)
    expect(info.body.buyer).toEqual({ accountCaip10: account(1), accountProviderName: "Test Wallet", accountProviderIcon: null })
    const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })
    expect(record.body.status).toBe("succeeded")
    expect(record.body.transaction).toEqual({ chainId: chain.chainId, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), explorerUrl: null })
    // Repeating the accepted confirm responds with the current state; the executor sent one transaction.
    const signature = await signOption(option, buyer.privateKey)
    const repeat = await confirm(paymentId, option.id, signature)
    expect(repeat.status).toBe(200)
    expect(repeat.body).toMatchObject({ status: "succeeded", isFinal: true, pollInMs: null, info: { txId: record.body.transaction.hash } })
    // The same signature resent in capital hex digits is the same confirm, not another one.
    const shouted = await confirm(paymentId, option.id, `0x${signature.slice(2).toUpperCase()}`)
    expect(shouted.status).toBe(200)
    expect(shouted.body).toEqual(repeat.body)
    expect(await balanceOf(buyer.address)).toBe(before.buyer - 12_500_000n)
  })

  it("refuses tampered and foreign option ids, other signers, and an authorization replayed on another payment", async () => {
    const paymentId = await newPayment()
    const other = await newPayment()
    const option = await optionFor(paymentId, 2)
    const signature = await signOption(option, anvilAccount(2).privateKey)
    const [version, body, tag] = (option.id as string).split(".")
    const flipped = `${body!.slice(0, -2)}${body!.endsWith("A") ? "B" : "A"}${body!.slice(-1)}`
    expectCode(await confirm(paymentId, `${version}.${flipped}.${tag}`, signature), "invalid_params")
    expectCode(await confirm(paymentId, "not-an-option", signature), "invalid_params")
    // The option of one payment does not confirm another.
    expectCode(await confirm(other, option.id, signature), "invalid_params")
    // Signed by someone else than the option's account.
    expectCode(await confirm(paymentId, option.id, await signOption(option, anvilAccount(3).privateKey)), "params_validation")
    // The same account's authorization for the first payment, replayed on the second payment's option.
    const otherOption = await optionFor(other, 2)
    expectCode(await confirm(other, otherOption.id, signature), "params_validation")
    // Results that are not one signature.
    const noResult = await call(server, "POST", `/v1/gateway/payment/${paymentId}/confirm`, { optionId: option.id, results: [], collectedData: null })
    expectCode(noResult, "params_validation")
    expectCode(await confirm(paymentId, option.id, "signature"), "params_validation")
    // Nothing was committed: the payment still waits, and its own signature still works.
    expect((await call(server, "GET", `/v1/gateway/payment/${paymentId}/status`)).body.status).toBe("requires_action")
    expect((await confirm(paymentId, option.id, signature)).body.status).toBe("processing")
    await waitFor(paymentId, "succeeded")
  })

  it("two concurrent confirms with different options: exactly one wins, one transfer is made", async () => {
    const paymentId = await newPayment()
    const [a, b] = [await optionFor(paymentId, 3), await optionFor(paymentId, 4)]
    const collection = await balanceOf(chain.collectionAddress)
    const responses = await Promise.all([
      confirm(paymentId, a.id, await signOption(a, anvilAccount(3).privateKey)),
      confirm(paymentId, b.id, await signOption(b, anvilAccount(4).privateKey))
    ])
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 409])
    expectCode(responses.find((r) => r.status === 409)!, "invalid_state")
    await waitFor(paymentId, "succeeded")
    expect(await balanceOf(chain.collectionAddress)).toBe(collection + 12_500_000n)
  })

  it("quote expiry, payment expiry during the flow, and a sanctioned account are refused at confirm", async () => {
    // EUR is priced by the feed: the option's quote expires.
    const eur = await newPayment("1000", "EUR")
    const option = await optionFor(eur, 6)
    expect(option.expiresAt).toEqual(expect.any(Number))
    const stale = await forge(option.id, (claims) => ({ ...claims, expiresAt: Math.floor(Date.now() / 1000) - 1 }))
    expectCode(await confirm(eur, stale, await signOption(option, anvilAccount(6).privateKey)), "quote_expired")

    const paymentId = await newPayment()
    const late = await optionFor(paymentId, 6)
    const signature = await signOption(late, anvilAccount(6).privateKey)
    await server.expireNow(paymentId)
    expectCode(await confirm(paymentId, late.id, signature), "payment_expired")

    const fresh = await newPayment()
    const mine = await optionFor(fresh, 6)
    const theirs = await forge(mine.id, (claims) => ({ ...claims, account: `${chain.chainId}:${sanctioned.address}` }))
    expectCode(await confirm(fresh, theirs, signature), "sanctioned_user")
  })

  it("a refreshed option replaces the old one: the old is quote_expired, the new one confirms", async () => {
    const paymentId = await newPayment()
    const old = await optionFor(paymentId, 7)
    const response = await call(server, "POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [account(7)], refresh: [old.id] })
    const renewed = response.body.options[0]
    expect(renewed.id).not.toBe(old.id)
    expectCode(await confirm(paymentId, old.id, await signOption(old, anvilAccount(7).privateKey)), "quote_expired")
    expect((await confirm(paymentId, renewed.id, await signOption(renewed, anvilAccount(7).privateKey))).body.status).toBe("processing")
    await waitFor(paymentId, "succeeded")
  })

  it("two executors share the work: 12 confirmed payments, each submitted exactly once", async () => {
    const sent = () => world().client.getTransactionCount({ address: chain.executorAddress })
    const ids = await Promise.all(Array.from({ length: 12 }, () => newPayment()))
    const options = await Promise.all(ids.map((id) => optionFor(id, 2)))
    const signatures = await Promise.all(options.map((option) => signOption(option, anvilAccount(2).privateKey)))
    const before = await sent()
    const confirmed = await Promise.all(ids.map((id, i) => confirm(id, options[i].id, signatures[i]!)))
    expect(confirmed.map((r) => r.body.status)).toEqual(ids.map(() => "processing"))
    for (const id of ids) await waitFor(id, "succeeded")
    expect(await sent()).toBe(before + 12)
  })

  it("a transaction another sender of the executor's key replaced in the pool: the authorization is sent again, the payment succeeds", async () => {
    const { client } = world()
    const anvil = createTestClient({ mode: "anvil", transport: http(chain.node.rpcUrl) })
    const paymentId = await newPayment()
    const option = await optionFor(paymentId, 6)
    const signature = await signOption(option, anvilAccount(6).privateKey)
    const nonce = await client.getTransactionCount({ address: chain.executorAddress })
    await anvil.setAutomine(false)
    try {
      expect((await confirm(paymentId, option.id, signature)).body.status).toBe("processing")
      // The executor's transaction waits in the pool, then another process with the executor's key
      // sends its own transaction with that nonce at higher fees: the node keeps that one.
      const deadline = Date.now() + 10_000
      while (await client.getTransactionCount({ address: chain.executorAddress, blockTag: "pending" }) === nonce) {
        if (Date.now() > deadline) throw new Error("the executor sent nothing")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const executor = privateKeyToAccount(anvilAccount(0).privateKey)
      const fees = await client.estimateFeesPerGas()
      await client.sendRawTransaction({
        serializedTransaction: await executor.signTransaction({
          type: "eip1559",
          chainId: Number(chain.chainId.split(":")[1]),
          nonce,
          to: executor.address,
          value: 0n,
          gas: 21_000n,
          maxFeePerGas: fees.maxFeePerGas * 3n,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 3n
        })
      })
      await anvil.mine({ blocks: 1 })
      expect(await client.getTransactionCount({ address: chain.executorAddress }), "the replacement took the nonce").toBe(nonce + 1)
    } finally {
      await anvil.setAutomine(true)
      await anvil.mine({ blocks: 1 }) // whatever the executor sent meanwhile
    }
    const payerBefore = await balanceOf(anvilAccount(6).address)
    await waitFor(paymentId, "succeeded")
    expect(await balanceOf(anvilAccount(6).address)).toBe(payerBefore - BigInt(option.amount.value))
  })

  it("RPC outage while processing: the payment stays processing, then succeeds when the chain is back", async () => {
    const paymentId = await newPayment()
    const option = await optionFor(paymentId, 7)
    const signature = await signOption(option, anvilAccount(7).privateKey)
    proxy.cut()
    try {
      expect((await confirm(paymentId, option.id, signature)).body.status).toBe("processing")
      // Several executor rounds meet the outage; none decides anything.
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      expect((await call(server, "GET", `/v1/gateway/payment/${paymentId}/status`)).body.status).toBe("processing")
    } finally {
      proxy.restore()
    }
    await waitFor(paymentId, "succeeded")
  })

  it("push payment: build → fetch → the wallet sends the transfer → confirm with its hash → succeeded", async () => {
    const response = await pushServer.request("POST", "/v1/payments", {
      apiKey: push.partner.sandbox,
      body: { merchantId: push.merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "push-1" }
    })
    const paymentId = response.body.paymentId as string
    const option = await optionFor(paymentId, 8, pushServer)
    const fetched = await call(pushServer, "POST", `/v1/gateway/payment/${paymentId}/fetch`, {
      optionId: option.id,
      data: option.actions[0].data.data
    })
    const [tx] = fetched.body.actions[0].data.params
    const payer = anvilAccount(8)
    const before = await balanceOf(payer.address)
    const wallet = createWalletClient({ account: privateKeyToAccount(payer.privateKey), transport: http(chain.node.rpcUrl) })
    const hash = await wallet.sendTransaction({ chain: null, to: tx.to, data: tx.data, value: 0n })
    const confirmed = await confirm(paymentId, option.id, hash, pushServer)
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toMatchObject({ status: "processing", info: { txId: hash.toLowerCase() } })
    await waitFor(paymentId, "succeeded", pushServer)
    expect(await balanceOf(payer.address)).toBe(before - 12_500_000n)
    // The same transaction cannot pay for another payment.
    const second = await pushServer.request("POST", "/v1/payments", {
      apiKey: push.partner.sandbox,
      body: { merchantId: push.merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId: "push-2" }
    })
    const otherOption = await optionFor(second.body.paymentId, 8, pushServer)
    expectCode(await confirm(second.body.paymentId, otherOption.id, hash, pushServer), "params_validation")
  })
})

