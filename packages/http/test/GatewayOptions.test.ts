/**
 * The gateway's options and fetch operations (API rules §10) on a real anvil chain (`LocalChain`:
 * TUSDC, an EIP-3009 token pegged to USD) and PGlite: option shape byte for byte, reuse and
 * refresh, payment info, every error code, and the served typed data signed by a wallet and
 * accepted by the chain gateway's verification. A second server accepts TUSDC as a push token
 * (no EIP-3009) for `/fetch`.
 */
import { Chain, GatewayServices, SanctionsList } from "@paygate/adapters"
import { ChainGateway, OptionIds, type PaymentProof } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../../test/support/ExpectError.ts"
import { pglite, type TestPartner, type TestServer, useTestServer } from "../../../test/support/TestServer.ts"

const { anvilAccount, ChainConfig, LocalChain, SignatureRecovery, ViemChainGateway } = Chain

const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)

const sanctioned = anvilAccount(5).address

describe("Gateway options and fetch (anvil, PGlite)", () => {
  const chainScope = Effect.runSync(Scope.make())
  let chain: Chain.LocalChain.LocalChainInfo
  let chains: Chain.ChainConfig.Chains
  let pushChains: Chain.ChainConfig.Chains
  // The chain first: the servers start on it, and it stops after they closed.
  beforeAll(async () => {
    // TUSDC alone: the quote bound below counts one quote per account and token of the chain.
    const context = await Effect.runPromise(Layer.buildWithScope(LocalChain.layer({ eur: false }), chainScope))
    chain = Context.get(context, LocalChain.LocalChain)
    chains = Context.get(context, ChainConfig.ChainsConfig)
    const settings = LocalChain.settingsFor(chain, 1)
    pushChains = await Effect.runPromise(
      ChainConfig.decode({ ...settings, assets: settings.assets.map((asset) => ({ ...asset, eip3009: false })) })
    )
  }, 120_000)
  afterAll(() => Effect.runPromise(Scope.close(chainScope, Exit.void)))
  const gateway = (config: () => Chain.ChainConfig.Chains) => () => ({
    gateway: GatewayServices.settings({
      chains: Layer.succeed(ChainConfig.ChainsConfig, config()),
      secret: new Uint8Array(randomBytes(32)),
      sanctions: Layer.orDie(SanctionsList.layerFromText(`# test list\n${sanctioned}\n`))
    })
  })
  const server = useTestServer(pglite, gateway(() => chains))
  const pushServer = useTestServer(pglite, gateway(() => pushChains))
  let partner: TestPartner
  let merchantId: string
  let walletKey: string
  let liveWalletKey: string
  let push: { readonly partner: TestPartner; readonly merchantId: string; readonly walletKey: string }

  const account = (index: number) => `${chain.chainId}:${anvilAccount(index).address}`
  const newPayment = async () => (await server.payment(partner.sandbox, merchantId)).paymentId as string
  const newPushPayment = async () => (await pushServer.payment(push.partner.sandbox, push.merchantId)).paymentId as string
  const keyFor = (on: TestServer) => (on === pushServer ? push.walletKey : walletKey)
  const options = (paymentId: string, body: unknown, query = "", on: TestServer = server, apiKey = keyFor(on)) =>
    on.request("POST", `/v1/gateway/payment/${paymentId}/options${query}`, { apiKey, body })
  const fetchActions = (paymentId: string, body: unknown, on: TestServer = server) =>
    on.request("POST", `/v1/gateway/payment/${paymentId}/fetch`, { apiKey: keyFor(on), body })

  beforeAll(async () => {
    partner = await server.partner()
    merchantId = await server.merchant(partner.sandbox, "Corner Coffee")
    walletKey = await server.walletKey("sandbox")
    liveWalletKey = await server.walletKey("live")
    const pushPartner = await pushServer.partner()
    push = {
      partner: pushPartner,
      merchantId: await pushServer.merchant(pushPartner.sandbox, "Push Shop"),
      walletKey: await pushServer.walletKey("sandbox")
    }
  }, 120_000)


  it("offers one TUSDC pull option per account: eth_signTypedData_v4 of the EIP-3009 authorization", async () => {
    const paymentId = await newPayment()
    const payment = (await server.request("GET", `/v1/gateway/payment/${paymentId}`, { apiKey: walletKey })).body
    const response = await options(paymentId, { accounts: [account(1)], refresh: null })
    expect(response.status).toBe(200)
    expect(Object.keys(response.body)).toEqual(["collectData", "info", "options"])
    expect(response.body.collectData).toBeNull()
    expect(response.body.info).toBeNull()
    expect(response.body.options).toHaveLength(1)
    const [option] = response.body.options
    expect(Object.keys(option)).toEqual(["id", "account", "amount", "etaS", "actions", "collectData", "expiresAt"])
    expect(option).toMatchObject({
      account: account(1),
      amount: {
        unit: `caip19/${chain.usdcAssetId}`,
        value: "12500000",
        display: { assetName: "Test USD Coin", assetSymbol: "TUSDC", decimals: 6, networkIconUrl: null, networkName: "Anvil (local)" }
      },
      etaS: 15,
      collectData: null,
      // Pegged to the payment's currency: no rate, no quote expiry.
      expiresAt: null
    })
    expect(option.amount.display.iconUrl).toMatch(/^data:image\/svg\+xml;base64,/)
    expect(option.actions).toHaveLength(1)
    const [action] = option.actions
    expect(action.type).toBe("walletRpc")
    expect(Object.keys(action.data)).toEqual(["chain_id", "method", "params"])
    expect(action.data.chain_id).toBe(chain.chainId)
    expect(action.data.method).toBe("eth_signTypedData_v4")
    expect(action.data.params).toHaveLength(2)
    expect(action.data.params[0]).toBe(anvilAccount(1).address)
    expect(typeof action.data.params[1]).toBe("string")
    const typed = JSON.parse(action.data.params[1])
    expect(Object.keys(typed)).toEqual(["types", "primaryType", "domain", "message"])
    expect(typed.primaryType).toBe("TransferWithAuthorization")
    expect(typed.domain).toEqual({ name: "Test USD Coin", version: "2", chainId: 31337, verifyingContract: chain.contracts.usdc })
    expect(typed.message).toEqual({
      from: anvilAccount(1).address,
      to: chain.collectionAddress,
      value: "12500000",
      validAfter: 0,
      validBefore: payment.expiresAt,
      nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/)
    })
  })

  it("answers the same option while its quote is valid; refresh quotes again", async () => {
    const paymentId = await newPayment()
    const first = await options(paymentId, { accounts: [account(1), account(2), "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"] })
    expect(first.status).toBe(200)
    // Mainnet is not configured: no option for that account.
    expect(first.body.options.map((o: any) => o.account)).toEqual([account(1), account(2)])
    const [one, two] = first.body.options
    const again = await options(paymentId, { accounts: [account(1), account(2)], refresh: [] })
    expect(again.text).toBe(first.text)
    const refreshed = await options(paymentId, { accounts: [account(1), account(2)], refresh: [one.id] })
    const [newOne, sameTwo] = refreshed.body.options
    expect(newOne.id).not.toBe(one.id)
    expect(sameTwo.id).toBe(two.id)
    const nonce = (o: any) => JSON.parse(o.actions[0].data.params[1]).message.nonce
    expect(nonce(newOne)).not.toBe(nonce(one))
    // The new quote is the one reused from now on.
    const later = await options(paymentId, { accounts: [account(1)] })
    expect(later.body.options[0].id).toBe(newOne.id)
  })

  it("bounds the quotes a payment holds: 60 calls for 20 new accounts each stop at the bound, quoted accounts still answered", async () => {
    const paymentId = await newPayment()
    const someone = () => `${chain.chainId}:0x${randomBytes(20).toString("hex")}`
    const statuses: Array<number> = []
    let quoted: Array<string> = []
    for (let call = 0; call < 60; call++) {
      const accounts = Array.from({ length: 20 }, someone)
      const response = await options(paymentId, { accounts })
      statuses.push(response.status)
      if (response.status === 200) quoted = accounts
      else expectCode(response, "params_validation")
    }
    // One token on the chain: one quote per account, 200 of them in 10 calls.
    expect(statuses.filter((status) => status === 200)).toHaveLength(10)
    const held = await server.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM quotes WHERE payment_id = ${paymentId}`)[0]!.n
    }))
    expect(held).toBe(200)
    // Accounts already quoted are answered from their quotes; refreshing one is a new quote, refused at the bound.
    const again = await options(paymentId, { accounts: quoted })
    expect(again.status).toBe(200)
    expectCode(await options(paymentId, { accounts: quoted, refresh: [again.body.options[0].id] }), "params_validation")
  })

  it("includes the payment's information only with includePaymentInfo=true", async () => {
    const paymentId = await newPayment()
    const info = (await server.request("GET", `/v1/gateway/payment/${paymentId}`, { apiKey: walletKey })).body
    const withInfo = await options(paymentId, { accounts: [account(1)] }, "?includePaymentInfo=true")
    expect(withInfo.status).toBe(200)
    expect(withInfo.body.info).toEqual(info)
    expect(Object.keys(withInfo.body.info)).toEqual(["status", "amount", "expiresAt", "merchant", "buyer"])
    expect((await options(paymentId, { accounts: [account(1)] }, "?includePaymentInfo=false")).body.info).toBeNull()
    expectCode(await options(paymentId, { accounts: [account(1)] }, "?includePaymentInfo=yes"), "invalid_params")
    expectCode(await options(paymentId, { accounts: [account(1)] }, "?includePaymentInfo=1"), "invalid_params")
  })

  it("checks accounts: 1 to 20 valid CAIP-10 accounts, none sanctioned", async () => {
    const paymentId = await newPayment()
    // Anvil #5 is sanctioned: repeat the first five.
    const twenty = Array.from({ length: 20 }, (_, i) => account(i % 5))
    expect((await options(paymentId, { accounts: twenty })).status).toBe(200)
    expectCode(await options(paymentId, { accounts: [...twenty, account(1)] }), "params_validation")
    expectCode(await options(paymentId, { accounts: [] }), "params_validation")
    expectCode(await options(paymentId, { accounts: ["eip155:31337:0x1234"] }), "params_validation")
    expectCode(await options(paymentId, { accounts: ["not-an-account"] }), "params_validation")
    expectCode(await options(paymentId, { accounts: [account(1), `${chain.chainId}:${sanctioned}`] }), "sanctioned_user")
    // Any case, any eip155 chain: the list has the bare address.
    expectCode(await options(paymentId, { accounts: [`eip155:8453:${sanctioned.toLowerCase()}`] }), "sanctioned_user")
  })

  it("answers only while the payment waits for the buyer, and only to its mode", async () => {
    const expired = await newPayment()
    await server.expireNow(expired)
    expectCode(await options(expired, { accounts: [account(1)] }), "payment_expired")
    const cancelled = await newPayment()
    expect((await server.request("POST", `/v1/gateway/payment/${cancelled}/cancel`, { apiKey: walletKey })).status).toBe(200)
    expectCode(await options(cancelled, { accounts: [account(1)] }), "invalid_state")
    const processing = await newPayment()
    await server.process(processing)
    expectCode(await options(processing, { accounts: [account(1)] }), "invalid_state")
    const other = await newPayment()
    expectCode(await options(other, { accounts: [account(1)] }, "", server, liveWalletKey), "payment_not_found")
    expectCode(await options("pay_nothing", { accounts: [account(1)] }), "payment_not_found")
  })

  it("refuses tampered and foreign option ids in refresh and fetch", async () => {
    const paymentId = await newPayment()
    const [option] = (await options(paymentId, { accounts: [account(1)] })).body.options
    const id: string = option.id
    const [prefix, body, tag] = id.split(".")
    const flipped = `${body!.slice(0, 10)}${body![10] === "A" ? "B" : "A"}${body!.slice(11)}`
    const tampered = [`${prefix}.${flipped}.${tag}`, `${id}x`, id.slice(0, -3), `${prefix}.${body}`, "", "opt1..", `${id}.${tag}`]
    // Signed with another secret: well-formed, not ours.
    const foreign = await Effect.runPromise(
      Effect.gen(function*() {
        const ids = yield* OptionIds
        return yield* ids.issue({
          paymentId,
          account: account(1),
          asset: chain.usdcAssetId,
          value: "1",
          expiresAt: null,
          kind: "push",
          nonce: `0x${"11".repeat(16)}`,
          quotedAt: 1
        })
      }).pipe(Effect.provide(OptionIds.layer(new Uint8Array(32).fill(7)).pipe(
        Layer.provide(Mac.layerWebCrypto),
        Layer.provide(SecureRandom.layerWebCrypto)
      )))
    )
    for (const bad of [...tampered, foreign]) {
      expectCode(await options(paymentId, { accounts: [account(1)], refresh: [bad] }), "invalid_params")
      expectCode(await fetchActions(paymentId, { optionId: bad, data: "x" }), "invalid_params")
    }
    // A genuine option of another payment.
    const otherPayment = await newPayment()
    expectCode(await fetchActions(otherPayment, { optionId: id, data: "x" }), "invalid_params")
    // A pull option has nothing to fetch.
    expectCode(await fetchActions(paymentId, { optionId: id, data: "x" }), "invalid_params")
    // Nor does another payment's option with an empty data.
    expectCode(await fetchActions(otherPayment, { optionId: id, data: "" }), "invalid_params")
  })

  it("fetch with an empty data answers the option's own actions (how @walletconnect/pay asks for an option it did not keep)", async () => {
    const paymentId = await newPayment()
    const [option] = (await options(paymentId, { accounts: [account(1)] })).body.options
    const pull = await fetchActions(paymentId, { optionId: option.id, data: "" })
    expect(pull.status).toBe(200)
    // The very actions of the options response: the same typed data (nonce, validBefore) to sign.
    expect(pull.body).toEqual({ actions: option.actions })

    const pushPayment = await newPushPayment()
    const [pushOption] = (await options(pushPayment, { accounts: [account(3)] }, "", pushServer)).body.options
    const resolved = await fetchActions(pushPayment, { optionId: pushOption.id, data: pushOption.actions[0].data.data }, pushServer)
    const whole = await fetchActions(pushPayment, { optionId: pushOption.id, data: "" }, pushServer)
    expect(whole.status).toBe(200)
    // A push option's actions come resolved: the eth_sendTransaction its build action stands for.
    expect(whole.body).toEqual(resolved.body)
    expect(whole.body.actions[0].data.method).toBe("eth_sendTransaction")
    // Not once the payment stopped waiting.
    await server.expireNow(paymentId)
    expectCode(await fetchActions(paymentId, { optionId: option.id, data: "" }), "payment_expired")
  })

  it("serves typed data that a wallet signs and the chain gateway accepts", async () => {
    const paymentId = await newPayment()
    const [option] = (await options(paymentId, { accounts: [account(1)] })).body.options
    const typed = JSON.parse(option.actions[0].data.params[1])
    const wallet = privateKeyToAccount(anvilAccount(1).privateKey)
    const { EIP712Domain: _domain, ...types } = typed.types
    const signature = await wallet.signTypedData({
      domain: typed.domain,
      types,
      primaryType: typed.primaryType,
      message: { ...typed.message, value: BigInt(typed.message.value), validAfter: BigInt(typed.message.validAfter), validBefore: BigInt(typed.message.validBefore) }
    })
    const proof = (signer: Hex): PaymentProof => ({
      _tag: "Authorization",
      account: option.account,
      asset: option.amount.unit.slice("caip19/".length),
      to: typed.message.to,
      value: BigInt(option.amount.value),
      validBefore: typed.message.validBefore,
      nonce: typed.message.nonce,
      signature: signer
    })
    const verify = (p: PaymentProof) =>
      Effect.runPromise(
        Effect.gen(function*() {
          return yield* Effect.exit((yield* ChainGateway).verify(p))
        }).pipe(
          Effect.provide(ViemChainGateway.layer.pipe(
            Layer.provide(Layer.succeed(ChainConfig.ChainsConfig, chains)),
            Layer.provide(SignatureRecovery.layerInline)
          ))
        )
      )
    expect(Exit.isSuccess(await verify(proof(signature)))).toBe(true)
    // Another key's signature of the same data is refused.
    const other = await privateKeyToAccount(anvilAccount(2).privateKey).signTypedData({
      domain: typed.domain,
      types,
      primaryType: typed.primaryType,
      message: { ...typed.message, value: BigInt(typed.message.value), validAfter: 0n, validBefore: BigInt(typed.message.validBefore) }
    })
    expect(Exit.isFailure(await verify(proof(other)))).toBe(true)
  })

  it("push options: a build action that /fetch resolves into eth_sendTransaction of the transfer with its reference", async () => {
    const paymentId = await newPushPayment()
    const response = await options(paymentId, { accounts: [account(3)] }, "", pushServer)
    expect(response.status).toBe(200)
    const [option] = response.body.options
    expect(option.actions).toEqual([{ type: "build", data: { data: expect.stringMatching(/^erc20-transfer:0x[0-9a-f]{32}$/) } }])
    const data = option.actions[0].data.data as string
    const reference = data.slice("erc20-transfer:".length)
    const fetched = await fetchActions(paymentId, { optionId: option.id, data }, pushServer)
    expect(fetched.status).toBe(200)
    expect(Object.keys(fetched.body)).toEqual(["actions"])
    expect(fetched.body.actions).toHaveLength(1)
    const [action] = fetched.body.actions
    expect(action.type).toBe("walletRpc")
    expect(Object.keys(action.data)).toEqual(["chain_id", "method", "params"])
    expect(action.data).toMatchObject({ chain_id: chain.chainId, method: "eth_sendTransaction" })
    const [tx] = action.data.params
    expect(Object.keys(tx)).toEqual(["from", "to", "value", "data"])
    expect(tx).toMatchObject({ from: anvilAccount(3).address, to: chain.contracts.usdc, value: "0x0" })
    // transfer(collection, 12.5 TUSDC) then the 16-byte reference.
    expect(tx.data.startsWith("0xa9059cbb")).toBe(true)
    expect(tx.data.endsWith(reference.slice(2))).toBe(true)
    expect(tx.data.toLowerCase()).toContain(chain.collectionAddress.slice(2).toLowerCase())
    expect(BigInt(`0x${tx.data.slice(2 + 8 + 64, 2 + 8 + 128)}`)).toBe(12_500_000n)
    // The data must be the build action's.
    expectCode(await fetchActions(paymentId, { optionId: option.id, data: "erc20-transfer:0x00" }, pushServer), "invalid_params")
    // Not once the payment stopped waiting.
    await pushServer.expireNow(paymentId)
    expectCode(await fetchActions(paymentId, { optionId: option.id, data }, pushServer), "payment_expired")
  })
})
