/**
 * What the x402 tests share: paygate (a test server over a local anvil, listening on a port, with
 * the executor running), a partner and merchant, buyers funded with the test token, and a resource
 * server built with the published `@x402/express` middleware whose facilitator is paygate.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { HTTPFacilitatorClient } from "@x402/core/server"
import { ExactEvmScheme } from "@x402/evm"
import { ExactEvmScheme as ExactEvmServer } from "@x402/evm/exact/server"
import { paymentMiddleware, x402ResourceServer } from "@x402/express"
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch"
import { Effect, Fiber, Layer } from "effect"
import express from "express"
import { randomBytes } from "node:crypto"
import type { AddressInfo } from "node:net"
import { type Address, type Hex, parseAbi } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import { executorJob } from "../support/ChainJobs.ts"
import { type LocalChainWorld, localChainForFile } from "../support/LocalChainWorld.ts"
import { type Listening, type TestDatabase, type TestServer, useTestServer } from "../support/TestServer.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"

const { anvilAccount, ChainConfig } = Chain
const domainAbi = parseAbi(["function name() view returns (string)", "function version() view returns (string)"])

/** The price of the test resource: one cent of TUSDC. */
export const price = 10_000n

export interface X402World {
  readonly chain: () => LocalChainWorld
  readonly server: TestServer
  /** paygate on a port. */
  readonly paygate: () => Listening
  readonly sandboxKey: () => string
  readonly merchantId: () => string
  /** CAIP-2 network of the local chain. */
  readonly network: () => `${string}:${string}`
  /** The test token's address and EIP-712 domain. */
  readonly token: () => { readonly address: Address; readonly name: string; readonly version: string }
  /** A new buyer holding `funds` of the test token. */
  readonly buyer: (funds?: bigint) => Promise<ReturnType<typeof privateKeyToAccount>>
  /** `fetch` that pays 402 responses as `account` (the published `@x402/fetch`), the test token allowed. */
  readonly payingFetch: (account: ReturnType<typeof privateKeyToAccount>) => typeof fetch
  /** paygate's headers for a facilitator client of the merchant. */
  readonly facilitatorHeaders: () => Record<string, string>
  /** Starts a resource server selling `GET /weather` through paygate; `facilitatorUrl` overrides paygate's. */
  readonly resourceServer: (facilitatorUrl?: string) => Promise<{ readonly url: string; readonly close: () => Promise<void> }>
}

/** The world of an x402 test file. */
export const x402World = (database: TestDatabase): X402World => {
  const chain = localChainForFile()
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(chain().settings())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let executor: Fiber.Fiber<unknown, unknown>
  let paygate: Listening
  let sandboxKey: string
  let merchantId: string
  let token: { address: Address; name: string; version: string }

  beforeAll(async () => {
    executor = await server.run(Effect.forkDetach(Layer.launch(executorJob)))
    paygate = await server.listen()
    const partner = await server.partner()
    sandboxKey = partner.sandbox
    merchantId = await server.merchant(partner.sandbox, "Weather Desk")
    const address = chain().chain.contracts.usdc
    const read = (functionName: "name" | "version") => chain().client.readContract({ address, abi: domainAbi, functionName })
    token = { address, name: await read("name"), version: await read("version") }
  }, 120_000)

  afterAll(async () => {
    await paygate?.close()
    await Effect.runPromise(Fiber.interrupt(executor))
  })

  const network = () => chain().chain.chainId as `${string}:${string}`
  const facilitatorHeaders = () => ({ "Api-Key": sandboxKey, "Merchant-Id": merchantId })

  const buyer = async (funds = 1_000_000n) => {
    const account = privateKeyToAccount(generatePrivateKey())
    if (funds > 0n) {
      await sendTokenTransfer({
        rpcUrl: chain().chain.node.rpcUrl,
        privateKey: anvilAccount(8).privateKey as Hex,
        token: token.address,
        to: account.address,
        value: funds
      })
    }
    return account
  }

  const resourceServer = async (facilitatorUrl = `${paygate.url}/x402`) => {
    const headers = facilitatorHeaders()
    const facilitator = new HTTPFacilitatorClient({
      url: facilitatorUrl,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers })
    })
    const resources = new x402ResourceServer(facilitator).register(network(), new ExactEvmServer())
    const app = express()
    app.use(paymentMiddleware({
      "GET /weather": {
        accepts: {
          scheme: "exact",
          network: network(),
          payTo: chain().chain.collectionAddress,
          price: { asset: token.address, amount: price.toString(), extra: { name: token.name, version: token.version } }
        },
        description: "Today's weather"
      }
    }, resources))
    app.get("/weather", (_request, response) => {
      response.json({ weather: "sunny" })
    })
    const listening = app.listen(0, "127.0.0.1")
    await new Promise<void>((resolve) => listening.once("listening", () => resolve()))
    const { port } = listening.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => listening.close(() => resolve()))
    }
  }

  const payingFetch = (account: ReturnType<typeof privateKeyToAccount>) =>
    wrapFetchWithPaymentFromConfig(fetch, {
      schemes: [{ network: "eip155:*", client: new ExactEvmScheme(account) }],
      spendControls: { allowedAssets: [{ network: network(), asset: token.address, maxAmountPerPayment: "100000000" }] }
    })

  return {
    chain,
    payingFetch,
    server,
    paygate: () => paygate,
    sandboxKey: () => sandboxKey,
    merchantId: () => merchantId,
    network,
    token: () => token,
    buyer,
    facilitatorHeaders,
    resourceServer
  }
}
