/**
 * A real wallet SDK against the service as it runs in production, so that wire drift cannot pass
 * CI again: the published `@walletconnect/pay` client (its Rust/WASM core parses every response into
 * strict serde types; a `null` where it expects a string, a missing required field or an unknown
 * enum value makes it throw) pays sandbox payments over a real socket against `npm start`.
 *
 * Per database (PGlite, and PostgreSQL when `TEST_DATABASE_URL` is set: a fresh database each):
 * - a pull service: `npm start` with its defaults (a local anvil with the EIP-3009 test token,
 *   sandbox credentials printed on the first start, the worker in process);
 * - a push service: `npm start` with `PAYGATE_CHAINS` accepting the same token without EIP-3009
 *   (on the pull service's anvil), so its options carry a `build` action.
 *
 * The wallet is viem with anvil's well-known keys. The SDK's requests to the services go through
 * `fetch` (recorded, to check headers and show the exchanges when the SDK rejects a response); its
 * telemetry to walletconnect.org/.com is answered locally and never leaves the machine.
 * Webhooks of the paid payment are verified with the `standardwebhooks` library.
 *
 * What the SDK does not cover (see docs/wallet-sdk-wire.md): it never fills in buyer data itself
 * (the wallet shows the `collectData` web view or sends `collectedData`), never calls
 * `GET /v1/gateway/payment/{id}` nor `/cancel`, and hides `build` actions from the options it
 * returns (it resolves them through `/fetch` in `getRequiredPaymentActions`).
 */
import { WalletConnectPay } from "@walletconnect/pay"
import type { Action } from "@walletconnect/pay"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPublicClient, createWalletClient, type Hex, http, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { spawnNpmStart, waitForOutput } from "./support/NpmStart.ts"
import { makePostgresWorld, type PostgresWorld } from "./support/PostgresWorld.ts"
import { type Receiver, startReceiver } from "./support/Receiver.ts"
import { freePort, serviceRoot } from "./support/ServiceProcess.ts"

// anvil's well-known default keys (public test keys, never used on a real chain); each test pays
// from its own account. #0 is the service's executor, #9 its collection address.
const anvilKeys: ReadonlyArray<Hex> = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"
]
const collectionAddress = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"
const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"])

// ---------------------------------------------------------------------------------------------
// The service as in production: `npm start` in its own process group, on a free port.

interface Service {
  readonly url: string
  readonly output: () => string
  readonly credentials: { readonly apiKey: string; readonly merchantId: string; readonly appId: string; readonly walletApiKey: string }
  /** The local anvil of a service started without `PAYGATE_CHAINS`. */
  readonly rpcUrl: string | undefined
  readonly tokenAssetId: string
  readonly stop: () => Promise<void>
}

const startService = async (name: string, env: Record<string, string>): Promise<Service> => {
  const port = await freePort()
  // The embedded database already migrated: what is tested here is the wire, not creating the database.
  if (env.DATABASE_URL === undefined) await copyMigratedDatabase(env.PAYGATE_DATA_DIR!, serviceRoot)
  // PAYGATE_SERVICE_ROOT: the service of another checkout (e.g. an older commit, to see what this test catches there).
  const started = spawnNpmStart({ ...env, PORT: String(port) }, serviceRoot)
  await waitForOutput(started, "Create a payment:").catch((error: Error) => {
    throw new Error(`${name}: ${error.message}`)
  })
  const output = started.output()
  const grab = (pattern: RegExp) => {
    const found = pattern.exec(output)?.[1]
    if (found === undefined) throw new Error(`${name}: ${pattern} not in the start output:\n${output.slice(-4_000)}`)
    return found
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: started.output,
    credentials: {
      apiKey: grab(/Api-Key\s+(sk_test_\S+)/),
      merchantId: grab(/Merchant-Id\s+(mer_\S+)/),
      appId: grab(/App-Id\s+(app_\S+)/),
      walletApiKey: grab(/wallet Api-Key (wk_test_[A-Za-z0-9_-]+)/)
    },
    rpcUrl: /Local chain eip155:31337 at (http:\/\/\S+):/.exec(output)?.[1],
    tokenAssetId: grab(/Accepting (eip155:31337\/erc20:0x[0-9a-fA-F]{40})/),
    stop: started.stop
  }
}

/** `PAYGATE_CHAINS` accepting `assetId` on `rpcUrl` as a push token (no EIP-3009). */
const pushChains = (rpcUrl: string, assetId: string) =>
  JSON.stringify({
    chains: [{
      chainId: "eip155:31337",
      testnet: true,
      rpcUrl,
      requiredConfirmations: 1,
      executorPrivateKey: anvilKeys[0],
      collectionAddress
    }],
    assets: [{
      assetId,
      decimals: 6,
      symbol: "TUSDC",
      name: "Test USD Coin",
      networkName: "Anvil (local)",
      iconUrl: "data:image/svg+xml;base64,PHN2Zy8+",
      eip3009: false,
      pricing: { kind: "peg", currency: "USD" }
    }]
  })

// ---------------------------------------------------------------------------------------------
// What the SDK sends and receives, through `fetch` (the WASM core calls the global `fetch`).

interface Exchange {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
  readonly status: number
  readonly answer: string
}

const exchanges: Array<Exchange> = []
/** Requests the SDK made to hosts other than this machine (its telemetry), answered here. */
const external: Array<string> = []
const realFetch = globalThis.fetch
const isLocal = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url)

const installFetch = () => {
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    if (!isLocal(request.url)) {
      external.push(`${request.method} ${new URL(request.url).origin}${new URL(request.url).pathname}`)
      const response = new Response(null, { status: 204 })
      // The SDK's HTTP client reads the response's URL.
      Object.defineProperty(response, "url", { value: request.url })
      return response
    }
    if (!new URL(request.url).pathname.startsWith("/v1/gateway/")) return realFetch(request)
    const body = request.method === "GET" ? undefined : await request.clone().text()
    const response = await realFetch(request)
    exchanges.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body,
      status: response.status,
      answer: await response.clone().text()
    })
    return response
  }) as typeof fetch
}

const shorten = (text: string | undefined) => (text ?? "").replace(/opt1\.[A-Za-z0-9_.-]+/g, "opt1.…").slice(0, 1_500)
const exchangesOf = (paymentId: string) => exchanges.filter((e) => e.url.includes(`/payment/${paymentId}/`))
const transcript = (paymentId: string) =>
  exchangesOf(paymentId).map((e) => `${e.method} ${new URL(e.url).pathname} ${shorten(e.body)}\n  → ${e.status} ${shorten(e.answer)}`).join("\n")

/** Runs an SDK call; when the SDK throws (e.g. it rejected a response), fails with the exchanges of the payment. */
const sdk = async <A>(what: string, paymentId: string, call: () => Promise<A>): Promise<A> => {
  try {
    return await call()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(`@walletconnect/pay ${what} failed: ${message}\nThe SDK's exchanges for ${paymentId}:\n${transcript(paymentId)}`)
  }
}

/** The message of the SDK's error for `call` (fails when it does not throw). */
const sdkError = async (call: () => Promise<unknown>): Promise<string> => {
  try {
    await call()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error("the SDK call did not fail")
}

// ---------------------------------------------------------------------------------------------
// The wallet: viem local accounts carry out the SDK's wallet RPC actions.

const wallet = (index: number, rpcUrl: string) => {
  const account = privateKeyToAccount(anvilKeys[index]!)
  const client = createWalletClient({ account, transport: http(rpcUrl) })
  return {
    address: account.address,
    caip10: `eip155:31337:${account.address}`,
    /** What the wallet answers to one action: a signature or a transaction hash. */
    perform: async (action: Action): Promise<string> => {
      const { chainId, method, params } = action.walletRpc
      expect(chainId).toBe("eip155:31337")
      // The SDK hands the RPC params over as a JSON string.
      const parsed = JSON.parse(params)
      if (method === "eth_signTypedData_v4") {
        const [signer, json] = parsed as [string, string]
        expect(signer.toLowerCase()).toBe(account.address.toLowerCase())
        const typed = JSON.parse(json)
        // viem derives the EIP712Domain type itself.
        const { EIP712Domain: _domain, ...types } = typed.types
        return account.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message })
      }
      if (method === "eth_sendTransaction") {
        const [tx] = parsed as [{ from: string; to: Hex; data: Hex; value?: Hex }]
        expect(tx.from.toLowerCase()).toBe(account.address.toLowerCase())
        return client.sendTransaction({ chain: null, to: tx.to, data: tx.data, value: BigInt(tx.value ?? "0x0") })
      }
      throw new Error(`the wallet does not support ${method}`)
    }
  }
}

// ---------------------------------------------------------------------------------------------

interface World {
  readonly pull: Service
  readonly push: Service
  readonly receiver: Receiver
  readonly close: () => Promise<void>
}

const stores: ReadonlyArray<{ readonly name: string; readonly available: boolean; readonly databases: () => Promise<{ env: (i: number) => Record<string, string>; close: () => Promise<void> }> }> = [
  {
    name: "PGlite",
    available: true,
    databases: async () => ({ env: () => ({}), close: async () => {} })
  },
  {
    name: "PostgreSQL",
    available: (process.env.TEST_DATABASE_URL ?? "") !== "",
    databases: async () => {
      // A fresh, empty database per service on the TEST_DATABASE_URL server, dropped at the end.
      const worlds: Array<PostgresWorld> = [
        await makePostgresWorld(process.env.TEST_DATABASE_URL!),
        await makePostgresWorld(process.env.TEST_DATABASE_URL!)
      ]
      return { env: (i) => ({ DATABASE_URL: worlds[i]!.url }), close: async () => void (await Promise.all(worlds.map((w) => w.close()))) }
    }
  }
]

for (const store of stores) {
  describe.runIf(store.available)(`@walletconnect/pay against npm start (${store.name})`, () => {
    let world: World

    beforeAll(async () => {
      installFetch()
      const dir = await mkdtemp(join(tmpdir(), "paygate-wallet-sdk-"))
      const databases = await store.databases()
      // Locally generated secrets (option ids, the at-rest key) go beside PAYGATE_DATA_DIR: keep them in the temporary directory.
      // WEBHOOK_ALLOW_PRIVATE: the test's webhook receiver listens on plain HTTP on loopback.
      const pull = await startService("pull", {
        PAYGATE_DATA_DIR: join(dir, "pull", "pglite"),
        WEBHOOK_ALLOW_PRIVATE: "true",
        ...databases.env(0)
      })
      const push = await startService("push", {
        PAYGATE_DATA_DIR: join(dir, "push", "pglite"),
        PAYGATE_CHAINS: pushChains(pull.rpcUrl!, pull.tokenAssetId),
        ...databases.env(1)
      })
      const receiver = await startReceiver()
      world = {
        pull,
        push,
        receiver,
        close: async () => {
          await Promise.all([push.stop(), pull.stop()])
          await receiver.close()
          await databases.close()
          await rm(dir, { recursive: true, force: true })
        }
      }
    }, 120_000)

    afterAll(async () => {
      globalThis.fetch = realFetch
      await world?.close()
    })

    const createPayment = async (on: Service, value: string) => {
      const response = await realFetch(`${on.url}/v1/merchant/payment`, {
        method: "POST",
        headers: { "api-key": on.credentials.apiKey, "merchant-id": on.credentials.merchantId, "content-type": "application/json" },
        body: JSON.stringify({ amount: { unit: "iso4217/USD", value }, referenceId: `sdk-${randomBytes(4).toString("hex")}` })
      })
      expect(response.status).toBe(200)
      return ((await response.json()) as { paymentId: string }).paymentId
    }
    const merchantStatus = async (on: Service, paymentId: string) =>
      (await realFetch(`${on.url}/v1/merchant/payment/${paymentId}/status`, {
        headers: { "api-key": on.credentials.apiKey, "merchant-id": on.credentials.merchantId }
      }).then((r) => r.json())) as { status: string; isFinal: boolean }
    const balanceOf = (address: Hex) =>
      createPublicClient({ transport: http(world.pull.rpcUrl!) }).readContract({
        address: world.pull.tokenAssetId.split(":").at(-1) as Hex,
        abi: erc20,
        functionName: "balanceOf",
        args: [address]
      })
    const client = (on: Service, auth: "app" | "key" = "app") =>
      new WalletConnectPay(
        auth === "app"
          ? { appId: on.credentials.appId, clientId: `wallet-sdk-test-${randomBytes(3).toString("hex")}`, baseUrl: on.url, logger: "silent" }
          : { apiKey: on.credentials.walletApiKey, baseUrl: on.url, logger: "silent" }
      )

    it("pays a sandbox payment: getPaymentOptions(includePaymentInfo) → getRequiredPaymentActions → viem signs → confirmPayment until succeeded; webhooks verify with standardwebhooks", async () => {
      const { pull, receiver } = world
      // The partner's webhook endpoint.
      const registered = await realFetch(`${pull.url}/v1/webhooks`, {
        method: "POST",
        headers: { "api-key": pull.credentials.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url("/hooks") })
      })
      expect(registered.status).toBe(201)
      receiver.expect("/hooks", ((await registered.json()) as { secret: string }).secret)

      const paymentId = await createPayment(pull, "1050")
      const buyer = wallet(1, pull.rpcUrl!)
      const before = await balanceOf(buyer.address as Hex)
      const pay = client(pull)

      const options = await sdk("getPaymentOptions", paymentId, () =>
        pay.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10], includePaymentInfo: true }))
      expect(options.paymentId).toBe(paymentId)
      expect(options.info).toMatchObject({
        status: "requires_action",
        amount: { unit: "iso4217/USD", value: "1050", display: { assetSymbol: "USD", decimals: 2 } },
        merchant: { name: "Sandbox shop" }
      })
      // TUSDC (EIP-3009), then TUSDT (Permit2): the local chain's two USD tokens.
      expect(options.options).toHaveLength(2)
      const [option] = options.options
      expect(option).toMatchObject({
        account: buyer.caip10,
        amount: { unit: `caip19/${pull.tokenAssetId}`, value: "10500000", display: { assetSymbol: "TUSDC", decimals: 6 } },
        actions: [{ walletRpc: { chainId: "eip155:31337", method: "eth_signTypedData_v4" } }]
      })

      const actions = await sdk("getRequiredPaymentActions", paymentId, () =>
        pay.getRequiredPaymentActions({ paymentId, optionId: option!.id }))
      expect(actions).toHaveLength(1)
      const signatures = [await buyer.perform(actions[0]!)]

      // The SDK confirms, then follows the status until it is final.
      const result = await sdk("confirmPayment", paymentId, () => pay.confirmPayment({ paymentId, optionId: option!.id, signatures }))
      expect(result).toMatchObject({ status: "succeeded", isFinal: true })
      expect(await merchantStatus(pull, paymentId)).toEqual({ status: "succeeded", isFinal: true })
      expect(await balanceOf(buyer.address as Hex)).toBe(before - 10_500_000n)

      // The confirm response the SDK accepted: no info before the executor's transaction (never a null txId).
      const confirm = exchangesOf(paymentId).find((e) => e.url.includes("/confirm"))!
      expect(JSON.parse(confirm.answer)).toEqual({ status: "processing", isFinal: false, pollInMs: 1000, info: null })
      // Repeating the confirm responds with the current state with the transaction id, which the SDK parses.
      const again = await sdk("confirmPayment (repeated)", paymentId, () => pay.confirmPayment({ paymentId, optionId: option!.id, signatures }))
      expect(again).toMatchObject({
        status: "succeeded",
        isFinal: true,
        info: { txId: expect.stringMatching(/^0x[0-9a-f]{64}$/), optionAmount: { unit: `caip19/${pull.tokenAssetId}`, value: "10500000" } }
      })
      // No response the SDK got had a null txId.
      for (const exchange of exchangesOf(paymentId)) expect(exchange.answer).not.toContain(`"txId":null`)

      // What the SDK sent: the public App-Id mode, its own name (recorded as the buyer's wallet), its version header.
      for (const exchange of exchangesOf(paymentId)) {
        expect(exchange.headers).toMatchObject({ "app-id": pull.credentials.appId, "sdk-name": "js-walletconnect-pay" })
        expect(exchange.headers["client-id"]).toMatch(/^wallet-sdk-test-/)
        expect(exchange.headers["wcp-version"]).toBe("2026-02-19.preview")
      }
      const info = await realFetch(`${pull.url}/v1/gateway/payment/${paymentId}`, {
        headers: { "app-id": pull.credentials.appId, "client-id": "test" }
      }).then((r) => r.json()) as { buyer: unknown }
      expect(info.buyer).toEqual({ accountCaip10: buyer.caip10, accountProviderName: "js-walletconnect-pay", accountProviderIcon: null })

      // The partner's webhooks of this payment, verified with the standardwebhooks library.
      const events = () => receiver.on("/hooks").filter((r) => r.envelope?.data?.payment?.id === paymentId || r.body.includes(paymentId))
      await receiver.waitFor(() => events().some((r) => r.envelope?.type === "payment.succeeded"), 20_000, "payment.succeeded")
      expect(events().every((r) => r.verified)).toBe(true)
      expect(new Set(events().map((r) => r.envelope.type))).toEqual(new Set(["payment.created", "payment.processing", "payment.succeeded"]))

      // Nothing the SDK sent left the machine (its telemetry was answered here).
      expect(exchanges.every((e) => isLocal(e.url))).toBe(true)
    }, 60_000)

    it("buyer data: the option's collectData reaches the wallet; confirm without it is refused, with collectedData it pays", async () => {
      const { pull } = world
      const paymentId = await createPayment(pull, "100000") // 1000.00 USD: the default data collection threshold
      const buyer = wallet(2, pull.rpcUrl!)
      const pay = client(pull)
      const { options } = await sdk("getPaymentOptions", paymentId, () =>
        pay.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] }))
      const [option] = options
      const collect = option!.collectData!
      // The SDK renames type → fieldType and hands the schema over as a JSON string.
      expect(collect.fields.map((f) => [f.id, f.fieldType, f.required])).toEqual([
        ["fullName", "text", true],
        ["dob", "date", true],
        ["pobCountry", "text", false],
        ["pobAddress", "text", false],
        ["porCountry", "text", false],
        ["porAddress", "text", false],
        ["tosConfirmed", "checkbox", true]
      ])
      expect(collect.url).toBe(`${pull.url.replace("127.0.0.1", "localhost")}/collect?paymentId=${paymentId}&account=${encodeURIComponent(buyer.caip10)}`)
      expect(JSON.parse(collect.schema!)).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" })

      const actions = await sdk("getRequiredPaymentActions", paymentId, () => pay.getRequiredPaymentActions({ paymentId, optionId: option!.id }))
      const signatures = [await buyer.perform(actions[0]!)]
      // Without the data: refused (400 params_validation, our message reaches the wallet).
      expect(await sdkError(() => pay.confirmPayment({ paymentId, optionId: option!.id, signatures }))).toMatch(
        /400: Buyer data is required for this payment/
      )
      // The wallet fills in the fields (values are strings; the checkbox is "true").
      const values: Record<string, string> = {
        fullName: "Ada Lovelace",
        dob: "1815-12-10",
        porCountry: "GB",
        porAddress: "12 St James's Square, London",
        tosConfirmed: "true"
      }
      const collectedData = collect.fields.filter((f) => f.id in values).map((f) => ({ id: f.id, value: values[f.id]! }))
      const result = await sdk("confirmPayment", paymentId, () => pay.confirmPayment({ paymentId, optionId: option!.id, signatures, collectedData }))
      expect(result).toMatchObject({ status: "succeeded", isFinal: true })
    }, 60_000)

    it("buyer data through the web view: the page at collectData.url submits it, then the SDK confirms without collectedData", async () => {
      const { pull } = world
      const paymentId = await createPayment(pull, "100000")
      const buyer = wallet(3, pull.rpcUrl!)
      const pay = client(pull)
      const { options } = await sdk("getPaymentOptions", paymentId, () => pay.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] }))
      const [option] = options
      // The wallet opens the web view; the page is served by the service...
      const url = new URL(option!.collectData!.url!)
      const page = await realFetch(`${pull.url}${url.pathname}${url.search}`)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toContain("text/html")
      // ...and submits the form's data as it does (gateway credentials, the account of the URL).
      const submitted = await realFetch(`${pull.url}/v1/gateway/payment/${paymentId}/collect-data`, {
        method: "POST",
        headers: { "app-id": pull.credentials.appId, "client-id": "collect-page", "content-type": "application/json" },
        body: JSON.stringify({
          account: url.searchParams.get("account"),
          data: { fullName: "Ada Lovelace", dob: "1815-12-10", pobCountry: "GB", pobAddress: "London", tosConfirmed: true }
        })
      })
      expect(submitted.status).toBe(200)
      const actions = await sdk("getRequiredPaymentActions", paymentId, () => pay.getRequiredPaymentActions({ paymentId, optionId: option!.id }))
      const signatures = [await buyer.perform(actions[0]!)]
      const result = await sdk("confirmPayment", paymentId, () => pay.confirmPayment({ paymentId, optionId: option!.id, signatures }))
      expect(result).toMatchObject({ status: "succeeded", isFinal: true })
    }, 60_000)

    it("push: the SDK resolves the build action through /fetch, the wallet sends the transfer, confirm carries its hash", async () => {
      const { push } = world
      const paymentId = await createPayment(push, "1050")
      const buyer = wallet(4, world.pull.rpcUrl!)
      const before = await balanceOf(buyer.address as Hex)
      const pay = client(push)
      const { options } = await sdk("getPaymentOptions", paymentId, () => pay.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] }))
      const [option] = options
      // The SDK leaves build actions out of the options it returns...
      expect(option).toMatchObject({ account: buyer.caip10, amount: { value: "10500000" }, actions: [] })
      expect(JSON.parse(exchangesOf(paymentId)[0]!.answer).options[0].actions[0].type).toBe("build")
      // ...and resolves them when asked for the option's actions.
      const actions = await sdk("getRequiredPaymentActions", paymentId, () => pay.getRequiredPaymentActions({ paymentId, optionId: option!.id }))
      expect(actions).toHaveLength(1)
      expect(actions[0]!.walletRpc.method).toBe("eth_sendTransaction")
      expect(exchangesOf(paymentId).some((e) => e.url.endsWith("/fetch") && JSON.parse(e.body!).data.startsWith("erc20-transfer:"))).toBe(true)
      const hash = await buyer.perform(actions[0]!)
      const result = await sdk("confirmPayment", paymentId, () => pay.confirmPayment({ paymentId, optionId: option!.id, signatures: [hash] }))
      expect(result).toMatchObject({ status: "succeeded", isFinal: true })
      // The confirm response carried the transaction id at once (the SDK parsed it).
      const confirm = exchangesOf(paymentId).find((e) => e.url.endsWith("/confirm"))!
      expect(JSON.parse(confirm.answer)).toMatchObject({ status: "processing", info: { txId: hash.toLowerCase(), optionAmount: { value: "10500000" } } })
      expect(await balanceOf(buyer.address as Hex)).toBe(before - 10_500_000n)
    }, 60_000)

    it("a new SDK client with the wallet Api-Key gets an option's actions it did not keep (fetch with empty data) and pays", async () => {
      const { pull } = world
      const paymentId = await createPayment(pull, "1050")
      const buyer = wallet(5, pull.rpcUrl!)
      const first = client(pull)
      const { options } = await sdk("getPaymentOptions", paymentId, () => first.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] }))
      // e.g. the wallet app restarted: a new client, nothing cached; private key mode this time.
      const second = client(pull, "key")
      const actions = await sdk("getRequiredPaymentActions", paymentId, () => second.getRequiredPaymentActions({ paymentId, optionId: options[0]!.id }))
      expect(actions).toEqual(options[0]!.actions)
      const fetched = exchangesOf(paymentId).find((e) => e.url.endsWith("/fetch"))!
      expect(JSON.parse(fetched.body!)).toEqual({ optionId: options[0]!.id, data: "" })
      expect(fetched.headers["api-key"]).toBe(pull.credentials.walletApiKey)
      const signatures = [await buyer.perform(actions[0]!)]
      const result = await sdk("confirmPayment", paymentId, () => second.confirmPayment({ paymentId, optionId: options[0]!.id, signatures }))
      expect(result).toMatchObject({ status: "succeeded", isFinal: true })
    }, 60_000)

    it("USDT through Permit2: the first payment runs approve then the permit (two actions, two results), the second signs only; both succeed with webhooks", async () => {
      const { pull, receiver } = world
      const registered = await realFetch(`${pull.url}/v1/webhooks`, {
        method: "POST",
        headers: { "api-key": pull.credentials.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url("/usdt-hooks") })
      })
      expect(registered.status).toBe(201)
      receiver.expect("/usdt-hooks", ((await registered.json()) as { secret: string }).secret)
      const buyer = wallet(6, pull.rpcUrl!)
      const usdt = (await realFetch(`${pull.url}/v1/gateway/payment/${await createPayment(pull, "100")}/options`, {
        method: "POST",
        headers: { "app-id": pull.credentials.appId, "client-id": "test", "content-type": "application/json" },
        body: JSON.stringify({ accounts: [buyer.caip10] })
      }).then((r) => r.json()) as { options: Array<{ amount: { unit: string; display: { assetSymbol: string } } }> }).options
        .find((o) => o.amount.display.assetSymbol === "TUSDT")!.amount.unit.slice("caip19/".length)
      const usdtBalance = () =>
        createPublicClient({ transport: http(world.pull.rpcUrl!) }).readContract({
          address: usdt.split(":").at(-1) as Hex,
          abi: erc20,
          functionName: "balanceOf",
          args: [buyer.address as Hex]
        })
      const pay = client(pull)

      const payUsdt = async (methods: ReadonlyArray<string>) => {
        const paymentId = await createPayment(pull, "1050")
        const before = await usdtBalance()
        const { options } = await sdk("getPaymentOptions", paymentId, () => pay.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] }))
        const option = options.find((o) => o.amount.display.assetSymbol === "TUSDT")!
        expect(option).toMatchObject({ account: buyer.caip10, amount: { unit: `caip19/${usdt}`, value: "10500000" } })
        const actions = await sdk("getRequiredPaymentActions", paymentId, () => pay.getRequiredPaymentActions({ paymentId, optionId: option.id }))
        expect(actions.map((a) => a.walletRpc.method)).toEqual(methods)
        // The wallet runs each action in order; signatures[] matches actions[] in order and length.
        const signatures: Array<string> = []
        for (const action of actions) signatures.push(await buyer.perform(action))
        const result = await sdk("confirmPayment", paymentId, () => pay.confirmPayment({ paymentId, optionId: option.id, signatures }))
        expect(result).toMatchObject({ status: "succeeded", isFinal: true })
        expect(await merchantStatus(pull, paymentId)).toEqual({ status: "succeeded", isFinal: true })
        expect(await usdtBalance()).toBe(before - 10_500_000n)
        const events = () => receiver.on("/usdt-hooks").filter((r) => r.body.includes(paymentId))
        await receiver.waitFor(() => events().some((r) => r.envelope?.type === "payment.succeeded"), 20_000, "payment.succeeded")
        expect(events().every((r) => r.verified)).toBe(true)
        return paymentId
      }
      const first = await payUsdt(["eth_sendTransaction", "eth_signTypedData_v4"])
      // What the SDK sent to confirm: one result per action, the approve's hash first.
      const confirm = exchangesOf(first).find((e) => e.url.endsWith("/confirm"))!
      const results = (JSON.parse(confirm.body!) as { results: Array<{ type: string; data: Array<string> }> }).results
      expect(results.map((r) => r.data.length)).toEqual([1, 1])
      expect(results[0]!.data[0]).toMatch(/^0x[0-9a-fA-F]{64}$/)
      await payUsdt(["eth_signTypedData_v4"])
    }, 90_000)

    it("errors reach the wallet as SDK errors (ours parse where the SDK's OpenAPI declares the status)", async () => {
      const { pull } = world
      const pay = client(pull)
      const account = wallet(1, pull.rpcUrl!).caip10
      expect(await sdkError(() => pay.getPaymentOptions({ paymentLink: "pay_00000000000000000000000000", accounts: [account] }))).toBe(
        "Payment not found: 404: No payment pay_00000000000000000000000000."
      )
      const paymentId = await createPayment(pull, "1050")
      expect(await sdkError(() => pay.getPaymentOptions({ paymentLink: paymentId, accounts: ["eip155:31337:nope"] }))).toMatch(
        /^Invalid request: 400: accounts\[0\]/
      )
      // The SDK takes a non-WalletConnect URL as an opaque id: a gatewayUrl is not a payment id here (API rules §8).
      expect(await sdkError(() => pay.getPaymentOptions({ paymentLink: `${pull.url}/checkout/${paymentId}`, accounts: [account] }))).toMatch(
        /^Payment not found: 404/
      )
      // 409 is not among the statuses the SDK's OpenAPI declares: it reports the status without our message.
      await realFetch(`${pull.url}/v1/gateway/payment/${paymentId}/cancel`, {
        method: "POST",
        headers: { "app-id": pull.credentials.appId, "client-id": "test" }
      })
      expect(await sdkError(() => pay.getPaymentOptions({ paymentLink: paymentId, accounts: [account] }))).toMatch(/409/)
      const answer = exchangesOf(paymentId).at(-1)!
      expect(answer.status).toBe(409)
      expect(JSON.parse(answer.answer)).toEqual({ code: "invalid_state", message: `Payment ${paymentId} is cancelled.` })
    }, 60_000)
  })
}
