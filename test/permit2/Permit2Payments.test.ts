/**
 * USDT-style payments through Permit2 on a real anvil chain (`TestUsdt`: no EIP-3009, approve only
 * from zero; `TestPermit2` at Permit2's canonical address), on PGlite and PostgreSQL: the options'
 * actions (approve only when the allowance falls short, approve(0) first when it is not zero), the
 * wallet running them with viem, confirm with the approve hashes then the signature, the executor's
 * `permitTransferFrom`, the watcher recording the transfer once; and every refusal: an approve that
 * never landed or reverted, an allowance below the amount, a permit for another spender, amount or
 * signer, a replayed or spent nonce, an allowance revoked between confirm and submit, a deadline the
 * chain passed. None leaves a stuck payment or moves tokens twice.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Fiber, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { createWalletClient, decodeFunctionData, encodeFunctionData, type Hex, http, maxUint256, parseAbi } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { SqlClient } from "effect/sql"
import { executorJob, payoutJobs } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { expectError } from "../support/ExpectError.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { ownCollection } from "../support/OwnCollection.ts"
import { forEachDatabase, type TestPartner, type TestServer, useTestServer } from "../support/TestServer.ts"
import { anvilRpc, watcherJob } from "../support/WatcherJob.ts"

const { anvilAccount, ChainConfig, LocalWallet, Permit2 } = Chain

const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const token = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 value) returns (bool)"
])

const world = localChainForFile()

forEachDatabase("Permit2 payments (anvil)", (database) => {
  const secret = new Uint8Array(randomBytes(32))
  /** The local chain through its proxy, with TUSDT (through Permit2) beside TUSDC. */
  const settings = () => ({ ...world().settings(), assets: Chain.LocalChain.settingsFor(world().chain, 1, { usdt: true }).assets })
  const gateway = (chains = settings) => () => ({ gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(chains())), secret }) })
  const server = useTestServer(database, gateway())
  // No executor until a test starts one: a confirmed payment waits there. A deployment beside the other, it collects
  // at an address of its own.
  const quiet = useTestServer(database, gateway(() => ownCollection(settings())))
  const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
  const keys = new Map<TestServer, { partner: TestPartner; merchantId: string; walletKey: string }>()

  const usdt = () => world().chain.contracts.usdt
  const usdtBalance = (address: Hex) => world().client.readContract({ address: usdt(), abi: token, functionName: "balanceOf", args: [address] })
  const allowance = (address: Hex) =>
    world().client.readContract({ address: usdt(), abi: token, functionName: "allowance", args: [address, Permit2.permit2Address] })
  const call = (on: TestServer, method: string, path: string, body?: unknown) =>
    on.request(method, path, { apiKey: keys.get(on)!.walletKey, headers: { "sdk-name": "Test Wallet" }, ...(body === undefined ? {} : { body }) })
  const newPayment = async (on: TestServer = server, value = "1250") => {
    const { partner, merchantId } = keys.get(on)!
    const response = await on.request("POST", "/v1/payments", {
      apiKey: partner.sandbox,
      body: { merchantId, amount: { unit: "iso4217/USD", value }, referenceId: `order-${randomBytes(4).toString("hex")}` }
    })
    expect(response.status).toBe(201)
    return response.body.paymentId as string
  }
  /** The TUSDT option of `buyer`'s account. */
  const usdtOption = async (paymentId: string, buyer: Buyer, on: TestServer = server) => {
    const response = await call(on, "POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] })
    expect(response.status).toBe(200)
    const option = response.body.options.find((o: any) => o.amount.unit === `caip19/${world().chain.usdtAssetId}`)
    expect(option).toBeDefined()
    return option
  }
  const confirm = (paymentId: string, optionId: string, answers: ReadonlyArray<string>, on: TestServer = server) =>
    call(on, "POST", `/v1/gateway/payment/${paymentId}/confirm`, {
      optionId,
      results: answers.map((answer) => ({ type: "walletRpc", data: [answer] })),
      collectedData: null
    })
  const status = async (paymentId: string, on: TestServer = server) => (await call(on, "GET", `/v1/gateway/payment/${paymentId}/status`)).body.status
  const waitFor = async (paymentId: string, wanted: string, on: TestServer = server, withinMs = 30_000) => {
    const deadline = Date.now() + withinMs
    for (;;) {
      const response = await call(on, "GET", `/v1/gateway/payment/${paymentId}/status?maxPollMs=1000`)
      if (response.body.status === wanted) return response.body
      if (Date.now() > deadline) throw new Error(`payment ${paymentId} is ${response.body.status}, not ${wanted}`)
    }
  }

  /**
   * A new buyer (a fresh key, given gas and 1,000 TUSDT: the chain is shared by the databases' runs)
   * and its wallet, which runs an option's actions as a wallet would.
   */
  const newBuyer = async () => {
    const key = generatePrivateKey()
    const address = privateKeyToAccount(key).address
    await anvilRpc(world(), "anvil_setBalance", [address, "0x56BC75E2D63100000"])
    const owner = createWalletClient({ account: privateKeyToAccount(anvilAccount(0).privateKey), transport: http(world().chain.node.rpcUrl) })
    const minted = await owner.sendTransaction({
      chain: null,
      to: usdt(),
      data: encodeFunctionData({ abi: Chain.Contracts.TestUsdt.abi, functionName: "mint", args: [address, 1_000_000_000n] })
    })
    await world().client.waitForTransactionReceipt({ hash: minted, pollingInterval: 50 })
    const client = createWalletClient({ account: privateKeyToAccount(key), transport: http(world().chain.node.rpcUrl) })
    const send = async (tx: { to: Hex; data: Hex }, gas?: bigint) => {
      const hash = await client.sendTransaction({ chain: null, to: tx.to, data: tx.data, ...(gas === undefined ? {} : { gas }) })
      await world().client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      return hash
    }
    return {
      key,
      address,
      caip10: `${world().chain.chainId}:${address}`,
      send,
      approve: (value: bigint, gas?: bigint) => send({ to: usdt(), data: Permit2.approvePermit2Calldata(value) }, gas),
      /** Every action in order: transaction hashes, then the signature. */
      run: async (option: any): Promise<Array<string>> => {
        const answers: Array<string> = []
        for (const action of option.actions) {
          if (action.data.method === "eth_sendTransaction") answers.push(await send(action.data.params[0]))
          else answers.push(await LocalWallet.signTypedDataJson(key, action.data.params[1]))
        }
        return answers
      },
      /** Signs the option's permit with `change` applied to its message. */
      signChanged: (option: any, change: (message: any) => any) => {
        const typed = JSON.parse(option.actions.at(-1).data.params[1])
        return LocalWallet.signTypedDataJson(key, JSON.stringify({ ...typed, message: change(typed.message) }))
      }
    }
  }
  type Buyer = Awaited<ReturnType<typeof newBuyer>>
  const approveAction = (action: any) => {
    expect(action).toMatchObject({ type: "walletRpc", data: { chain_id: world().chain.chainId, method: "eth_sendTransaction" } })
    expect(action.data.params[0].to).toBe(usdt())
    const decoded = decodeFunctionData({ abi: token, data: action.data.params[0].data })
    expect(decoded.functionName).toBe("approve")
    expect(decoded.args[0]).toBe(Permit2.permit2Address)
    return decoded.args[1]
  }

  beforeAll(async () => {
    for (const on of [server, quiet]) {
      const partner = await on.partner()
      keys.set(on, { partner, merchantId: await on.merchant(partner.sandbox, "Tether Shop"), walletKey: await on.walletKey("sandbox") })
    }
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(executorJob))))
    fibers.push(await server.run(Effect.forkDetach(Layer.launch(watcherJob(await Effect.runPromise(ChainConfig.decode(settings())))))))
  }, 120_000)

  afterAll(async () => {
    for (const fiber of fibers) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  let first: Buyer | undefined

  it("first payment: approve Permit2, then sign; confirm with the approve's hash then the signature; the executor pulls the tokens", async () => {
    const buyer = await newBuyer()
    first = buyer
    expect(await allowance(buyer.address)).toBe(0n)
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    expect(option.amount).toMatchObject({ value: "12500000", display: { assetSymbol: "TUSDT", decimals: 6 } })
    expect(option.actions).toHaveLength(2)
    expect(approveAction(option.actions[0])).toBe(maxUint256)
    const sign = option.actions[1]
    expect(sign.data.method).toBe("eth_signTypedData_v4")
    const typed = JSON.parse(sign.data.params[1])
    expect(typed.primaryType).toBe("PermitTransferFrom")
    expect(typed.domain).toEqual({ name: "Permit2", chainId: 31337, verifyingContract: Permit2.permit2Address })
    expect(typed.message).toMatchObject({ permitted: { token: usdt(), amount: "12500000" }, spender: world().chain.executorAddress })
    const before = { buyer: await usdtBalance(buyer.address), collection: await usdtBalance(world().chain.collectionAddress) }

    const answers = await buyer.run(option)
    const confirmed = await confirm(paymentId, option.id, answers)
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toMatchObject({ status: "processing", isFinal: false })
    await waitFor(paymentId, "succeeded")
    expect(await usdtBalance(buyer.address)).toBe(before.buyer - 12_500_000n)
    expect(await usdtBalance(world().chain.collectionAddress)).toBe(before.collection + 12_500_000n)
    // The executor's transaction is Permit2's permitTransferFrom.
    const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: keys.get(server)!.partner.sandbox })
    const tx = await world().client.getTransaction({ hash: record.body.transaction.hash })
    expect(tx.to?.toLowerCase()).toBe(Permit2.permit2Address.toLowerCase())
    // The same confirm again: the current state, nothing sent twice.
    expect((await confirm(paymentId, option.id, answers)).body).toMatchObject({ status: "succeeded", info: { txId: record.body.transaction.hash } })
    // The watcher recorded that transfer as this payment's, once.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await usdtBalance(buyer.address)).toBe(before.buyer - 12_500_000n)
    expect(await status(paymentId)).toBe("succeeded")
  })

  it("second payment: the allowance suffices, so the option is the signature alone", async () => {
    const buyer = first!
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    expect(option.actions.map((a: any) => a.data.method)).toEqual(["eth_signTypedData_v4"])
    const before = await usdtBalance(buyer.address)
    expect((await confirm(paymentId, option.id, await buyer.run(option))).status).toBe(200)
    await waitFor(paymentId, "succeeded")
    expect(await usdtBalance(buyer.address)).toBe(before - 12_500_000n)
  })

  it("a non-zero allowance below the amount: approve(0), then approve, then sign (USDT refuses a non-zero approve over a non-zero allowance)", async () => {
    const buyer = await newBuyer()
    await buyer.approve(1n)
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    expect(option.actions).toHaveLength(3)
    expect(approveAction(option.actions[0])).toBe(0n)
    expect(approveAction(option.actions[1])).toBe(maxUint256)
    // Approving over the non-zero allowance directly would revert.
    await expect(world().client.call({ account: buyer.address, to: usdt(), data: Permit2.approvePermit2Calldata(maxUint256) })).rejects.toThrow(/non-zero/)
    const before = await usdtBalance(buyer.address)
    const answers = await buyer.run(option)
    expect(answers).toHaveLength(3)
    expect((await confirm(paymentId, option.id, answers)).status).toBe(200)
    await waitFor(paymentId, "succeeded")
    expect(await usdtBalance(buyer.address)).toBe(before - 12_500_000n)
  })

  it("refuses an approve that never landed or reverted, an allowance below the amount, and permits for another spender, amount or signer", async () => {
    const buyer = await newBuyer()
    const w = buyer
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    expect(option.actions).toHaveLength(2)
    const signature = await LocalWallet.signOption(option, buyer.key)
    // The approve skipped: the allowance is below the amount.
    expectCode(await confirm(paymentId, option.id, [signature]), "params_validation")
    // An approve hash the chain never saw.
    expectCode(await confirm(paymentId, option.id, [`0x${randomBytes(32).toString("hex")}`, signature]), "params_validation")
    // A transaction of the buyer's that is not an approve of Permit2.
    const other = await w.send({ to: usdt(), data: Permit2.approvePermit2Calldata(0n).replace(Permit2.permit2Address.slice(2).toLowerCase(), anvilAccount(7).address.slice(2).toLowerCase()) as Hex })
    expectCode(await confirm(paymentId, option.id, [other, signature]), "params_validation")
    // Too many results, or one that is not a hash.
    expectCode(await confirm(paymentId, option.id, [other, other, other, signature]), "params_validation")
    expectCode(await confirm(paymentId, option.id, ["approve", signature]), "params_validation")
    // The real approve, but a permit for another spender, another amount, or signed by another account.
    const approve = await w.approve(maxUint256)
    expectCode(await confirm(paymentId, option.id, [approve, await w.signChanged(option, (m) => ({ ...m, spender: anvilAccount(7).address }))]), "params_validation")
    expectCode(
      await confirm(paymentId, option.id, [approve, await w.signChanged(option, (m) => ({ ...m, permitted: { ...m.permitted, amount: "1" } }))]),
      "params_validation"
    )
    expectCode(await confirm(paymentId, option.id, [approve, await LocalWallet.signOption(option, anvilAccount(4).privateKey)]), "params_validation")
    // Nothing was committed, nothing moved; the buyer's own permit still pays, once.
    expect(await status(paymentId)).toBe("requires_action")
    const before = await usdtBalance(buyer.address)
    expect((await confirm(paymentId, option.id, [approve, signature])).status).toBe(200)
    await waitFor(paymentId, "succeeded")
    expect(await usdtBalance(buyer.address)).toBe(before - 12_500_000n)
  })

  it("refuses an approve that reverted (USDT's rule), a replayed permit and a spent nonce; a permit is used once on chain", async () => {
    const buyer = await newBuyer()
    const w = buyer
    await w.approve(1n)
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    const signature = await LocalWallet.signOption(option, buyer.key)
    // The wallet skipped approve(0): its approve reverted on chain.
    const reverted = await w.approve(maxUint256, 100_000n)
    expect((await world().client.getTransactionReceipt({ hash: reverted })).status).toBe("reverted")
    expectCode(await confirm(paymentId, option.id, [reverted, signature]), "params_validation")
    await w.approve(0n)
    const approve = await w.approve(maxUint256)
    expect((await confirm(paymentId, option.id, [approve, signature])).status).toBe(200)
    await waitFor(paymentId, "succeeded")

    // The paid permit replayed on another payment's option: another nonce, so not the buyer's signature there.
    const second = await newPayment()
    const secondOption = await usdtOption(second, buyer)
    expectCode(await confirm(second, secondOption.id, [signature]), "params_validation")
    // The paid permit sent again to Permit2 by the executor: its nonce is spent.
    const record = await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: keys.get(server)!.partner.sandbox })
    const paid = await world().client.getTransaction({ hash: record.body.transaction.hash })
    await expect(world().client.call({ account: world().chain.executorAddress, to: Permit2.permit2Address, data: paid.input })).rejects.toThrow(/InvalidNonce|0x756688fe|reverted/)
    // A nonce the buyer spent (invalidated on Permit2) before confirming.
    const nonce = BigInt(JSON.parse(secondOption.actions.at(-1).data.params[1]).message.nonce)
    const { wordPos, bit } = Permit2.noncePosition(nonce)
    await w.send({ to: Permit2.permit2Address, data: encodeFunctionData({ abi: Permit2.permit2Abi, functionName: "invalidateUnorderedNonces", args: [wordPos, bit] }) })
    const before = await usdtBalance(buyer.address)
    expectCode(await confirm(second, secondOption.id, [await LocalWallet.signOption(secondOption, buyer.key)]), "params_validation")
    expect(await status(second)).toBe("requires_action")
    expect(await usdtBalance(buyer.address)).toBe(before)
  })

  it("an allowance revoked between confirm and submit: nothing is sent while it is gone; restored, the payment is paid once", async () => {
    const buyer = await newBuyer()
    const w = buyer
    await w.approve(maxUint256)
    const paymentId = await newPayment(quiet)
    const option = await usdtOption(paymentId, buyer, quiet)
    expect(option.actions).toHaveLength(1)
    expect((await confirm(paymentId, option.id, await w.run(option), quiet)).body.status).toBe("processing")
    await w.approve(0n)
    const before = await usdtBalance(buyer.address)
    fibers.push(await quiet.run(Effect.forkDetach(Layer.launch(executorJob))))
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    // The executor's simulation reverts: nothing sent, the payment waits (still valid), never failed.
    expect(await status(paymentId, quiet)).toBe("processing")
    expect(await usdtBalance(buyer.address)).toBe(before)
    await w.approve(maxUint256)
    await waitFor(paymentId, "succeeded", quiet)
    expect(await usdtBalance(buyer.address)).toBe(before - 12_500_000n)
  })

  it("settlement in TUSDT (whose transfer returns nothing, as Tether's on Ethereum): the merchant's destination receives it, and the ledger balances", async () => {
    const { partner } = keys.get(server)!
    const merchantId = await server.merchant(partner.sandbox, "Settling Tether Shop")
    const destination = privateKeyToAccount(generatePrivateKey()).address
    const asset = world().chain.usdtAssetId
    const registered = await server.request("POST", `/v1/merchants/${merchantId}/settlements/crypto`, {
      apiKey: partner.sandbox,
      body: { settlements: [{ asset, destination: `${world().chain.chainId}:${destination}` }] }
    })
    expect(registered.status).toBe(201)
    const payouts = await server.run(Effect.forkDetach(Layer.launch(payoutJobs())))
    try {
      const buyer = await newBuyer()
      const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
      const option = await usdtOption(paymentId, buyer)
      expect((await confirm(paymentId, option.id, await buyer.run(option))).status).toBe(200)
      await waitFor(paymentId, "succeeded")
      const record = await eventually(
        async () => (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey: partner.sandbox })).body,
        (r) => r.settlement?.status === "completed",
        60_000
      )
      expect(await usdtBalance(destination)).toBe(12_500_000n)
      // The settlement is TUSDT's own transfer from the collection address, which answered nothing.
      const sent = await world().client.getTransaction({ hash: record.settlement.txHash })
      expect({ from: sent.from, to: sent.to }).toEqual({ from: world().chain.collectionAddress.toLowerCase(), to: usdt().toLowerCase() })
      expect(await world().client.call({ account: world().chain.collectionAddress, to: usdt(), data: sent.input })).toEqual({ data: undefined })

      // The ledger: what the merchant was owed (credited on receipt) is paid out (debited), once each.
      const entries = () =>
        server.run(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ readonly source: string; readonly amount: string }>`SELECT t.source, e.amount::text AS amount
            FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id JOIN ledger_transactions t ON t.id = e.transaction_id
            WHERE a.kind = 'merchant' AND a.merchant_id = ${merchantId} AND a.asset = ${asset} ORDER BY e.id`
        }).pipe(Effect.orDie))
      expect(await eventually(entries, (rows) => rows.length === 2, 30_000)).toEqual([
        { source: "receipt", amount: "-12500000" },
        { source: "payout", amount: "12500000" }
      ])
      const unbalanced = await server.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`SELECT transaction_id, asset FROM ledger_entries GROUP BY transaction_id, asset HAVING sum(amount) <> 0`
      }).pipe(Effect.orDie))
      expect(unbalanced).toEqual([])
    } finally {
      await Effect.runPromise(Fiber.interrupt(payouts))
    }
  })

  // Last: it moves the chain's clock an hour ahead (and back).
  it("a permit whose deadline the chain passed is never sent: the payment fails and nothing moves", async () => {
    const buyer = await newBuyer()
    const w = buyer
    await w.approve(maxUint256)
    const paymentId = await newPayment()
    const option = await usdtOption(paymentId, buyer)
    const answers = await w.run(option)
    const snapshot = await anvilRpc(world(), "evm_snapshot")
    try {
      await anvilRpc(world(), "evm_increaseTime", [3_600])
      await anvilRpc(world(), "anvil_mine", ["0x1"])
      const before = await usdtBalance(buyer.address)
      expect((await confirm(paymentId, option.id, answers)).status).toBe(200)
      await waitFor(paymentId, "failed")
      expect(await usdtBalance(buyer.address)).toBe(before)
    } finally {
      // The chain's clock back for the next run of this file's tests.
      await anvilRpc(world(), "evm_revert", [snapshot])
    }
  })
})
