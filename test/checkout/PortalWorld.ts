/**
 * The service as `npm start` runs it, for browser tests: a fresh anvil chain with TUSDC
 * (`LocalChain`), the production services on an in-memory PGlite with migrations, the HTTP routes
 * on a real port of 127.0.0.1 (so `gatewayUrl` points at this server's `/checkout`), and the
 * worker in process (expiry, webhooks, and the executor that submits pull payments on chain).
 * Tests create payments through the Merchant API like a merchant backend would.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Chain, CredentialAdmin, GatewayServices, Migrations } from "@paygate/adapters"
import { ApiHost, Application } from "@paygate/app"
import { Payment, type PaymentId, PaymentRepository } from "@paygate/domain"
import { ConfigProvider, Context, Effect, Exit, Layer, Option, References, Scope } from "effect"
import { HttpRouter } from "effect/http"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { createWalletClient, defineChain, http as viemHttp, publicActions } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { WorkerLive } from "../../app/WorkerLive.ts"
import { freePort } from "../support/FreePort.ts"
import { pglite, type TestDatabase } from "../support/TestServer.ts"
import { ServiceRoutes, CheckoutSettings, ClientAddress, RateLimiter, routerConfig } from "@paygate/http"

/** A payment as the merchant's backend got it. */
export interface CreatedPayment {
  readonly paymentId: string
  readonly gatewayUrl: string
}

/** What a merchant backend sends: amount in minor units (default 12.50 USD), optional redirect URLs. */
export interface PaymentRequest {
  readonly currency?: string
  readonly value?: string
  readonly checkout?: { readonly successUrl?: string; readonly errorUrl?: string }
  /** A held payment (`capture: "manual"`) with these fields (`captureWindowSeconds`, `voidAtDeadline`). */
  readonly hold?: { readonly captureWindowSeconds?: number; readonly voidAtDeadline?: boolean }
}

/** How the world accepts TUSDC. */
export interface WorldOptions {
  /** EIP-3009 pull payments (default); `false`: push payments (`build` → ERC-20 transfer). */
  readonly pull?: boolean
  /** The chain's block explorer (`explorerUrl` of its configuration); default none, like the local chain. */
  readonly explorerUrl?: string
  /** `false`: the chain's configuration names no deposit factory (no deposit addresses); default it does. */
  readonly deposits?: boolean
  /** Also accept TUSDT, pulled through Permit2 whatever `pull` says; default no. */
  readonly usdt?: boolean
  /** Also accept the chain's ether (TETH, priced by the test feed, which the world sets to {@link eurUsd}); default no. */
  readonly native?: boolean
  /** The database (default: a fresh PGlite). */
  readonly database?: TestDatabase
  /** `WEBHOOK_ALLOW_PRIVATE`: webhook endpoints on 127.0.0.1 (a test receiver); default no. */
  readonly allowPrivateWebhooks?: boolean
  /** More configuration variables of the service (e.g. `WALLET_ORIGINS`). */
  readonly config?: Record<string, string>
}

/** The running service. */
export interface PortalWorld {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string
  readonly chain: Chain.LocalChain.LocalChainInfo
  /** The sandbox secret key of the world's partner, and its merchant "Corner Coffee". */
  readonly partnerKey: string
  readonly merchantId: string
  /** Calls the partner API with {@link partnerKey}: the JSON answer; any status but 2xx throws. */
  readonly partner: (method: string, path: string, body?: unknown) => Promise<any>
  /** Runs operator work (partners, keys, apps) on the world's database. */
  readonly admin: <A, E>(effect: Effect.Effect<A, E, CredentialAdmin>) => Promise<A>
  /** Runs work on the world's database directly: seeding what no API makes (old payments, say) and reading it back. */
  readonly database: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | PaymentRepository>) => Promise<A>
  /** Calls the Merchant API as the world's merchant: the JSON answer; any status but 2xx throws. */
  readonly merchant: (method: string, path: string, body?: unknown) => Promise<any>
  /** Creates a payment through the Merchant API (sandbox). */
  readonly createPayment: (request?: PaymentRequest) => Promise<CreatedPayment>
  /** The Merchant API's view of a payment: `{status, isFinal}`. */
  readonly merchantStatus: (paymentId: string) => Promise<{ readonly status: string; readonly isFinal: boolean }>
  /** Moves a waiting payment's expiry into the past (it then reads as expired). */
  readonly expireNow: (paymentId: string) => Promise<void>
  readonly close: () => Promise<void>
}


/** One EUR in USD that the world's price feed answers (8 decimals): EUR 12.50 is 13.50 TUSDC. */
export const eurUsd = 108_000_000n

/**
 * The local chain deploys its test feed as "TETH / USD" at 2,000: set to {@link eurUsd} for the
 * world's EUR feed (else EUR 12.50 would be priced at 25,000 TUSDC). Its deployer (anvil #0) owns it.
 */
const setEurFeed = async (chain: Chain.LocalChain.LocalChainInfo) => {
  const client = createWalletClient({
    account: privateKeyToAccount(Chain.anvilAccount(0).privateKey),
    chain: defineChain({
      id: chain.node.chainId,
      name: "anvil",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [chain.node.rpcUrl] } }
    }),
    transport: viemHttp()
  }).extend(publicActions)
  const hash = await client.writeContract({ address: chain.contracts.priceFeed as `0x${string}`, abi: Chain.Contracts.TestPriceFeed.abi, functionName: "setAnswer", args: [eurUsd] })
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== "success") throw new Error("setting the EUR / USD test feed failed")
}

/**
 * Starts everything; `close` stops it. TUSDC is pegged to USD; EUR payments are priced with the
 * test price feed at {@link eurUsd} (so their options carry a quote expiry).
 */
export const startPortalWorld = async (options: WorldOptions = {}): Promise<PortalWorld> => {
  const scope = Effect.runSync(Scope.make())
  try {
    const localChain = await Effect.runPromise(Layer.buildWithScope(Chain.LocalChain.layer(), scope))
    const chain = Context.get(localChain, Chain.LocalChain.LocalChain)
    await setEurFeed(chain)
    const settings = Chain.LocalChain.settingsFor(chain, 1, { usdt: options.usdt ?? false, native: options.native ?? false })
    const chains = await Effect.runPromise(Chain.ChainConfig.decode({
      ...settings,
      chains: settings.chains.map(({ depositFactory, ...c }) => ({
        ...c,
        ...(options.explorerUrl === undefined ? {} : { explorerUrl: options.explorerUrl }),
        ...(options.deposits === false ? {} : { depositFactory })
      })),
      assets: settings.assets.map((asset) =>
        Chain.NativeAsset.isNativeAssetId(asset.assetId) ? asset : {
          ...asset,
          eip3009: "permit2" in asset ? false : options.pull ?? true,
          pricing: { kind: "peg", currency: "USD", fxFeeds: [{ currency: "EUR", address: chain.contracts.priceFeed }] }
        }
      )
    }))
    const chainContext = Context.add(localChain, Chain.ChainConfig.ChainsConfig, chains)
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`

    const config = ConfigProvider.layer(ConfigProvider.fromUnknown({
      ENVIRONMENT: "production",
      PUBLIC_URL: baseUrl,
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      WEBHOOK_ALLOW_PRIVATE: String(options.allowPrivateWebhooks ?? false),
      ...options.config
    }))
    const services = Application.layerWith(
      Migrations.layer.pipe(Layer.provideMerge((options.database ?? pglite).layer())),
      GatewayServices.settings({ chains: Layer.succeedContext(chainContext), secret: new Uint8Array(randomBytes(32)) })
    )
    const http = HttpRouter.serve(
      ServiceRoutes.pipe(Layer.provide([
        Layer.succeed(CheckoutSettings, CheckoutSettings.of({ checkoutUrl: `${baseUrl}/checkout`, dataCollectionUrl: `${baseUrl}/collect`, x402Url: `${baseUrl}/v1/x402/payments`, linkUrl: `${baseUrl}/l`, subscribeUrl: `${baseUrl}/s`, refundClaimUrl: `${baseUrl}/r` })),
        RateLimiter.layer,
        ClientAddress.ClientAddress.layer
      ]), Layer.provide(ApiHost.layer)),
      { routerConfig, disableLogger: true }
    ).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })))
    const world = Layer.mergeAll(http, WorkerLive).pipe(
      Layer.provideMerge(services),
      Layer.provide(Layer.succeedContext(chainContext)),
      Layer.provide(config),
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
    )
    const context = await Effect.runPromise(Layer.buildWithScope(world, scope))
    const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof services>>) => Effect.runPromise(Effect.provideContext(effect, context))

    const partner = await run(Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const created = yield* admin.createPartner({ name: "Portal test partner" })
      return (yield* admin.createApiKey({ kind: "partner", partnerId: created.id, mode: "sandbox" })).apiKey
    }))
    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { "api-key": partner, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? null : JSON.stringify(body)
      })
      const json = await response.json() as any
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
      return json
    }
    const merchant = await api("POST", "/v1/merchants", { merchantName: "Corner Coffee" }, { "idempotency-key": randomBytes(8).toString("hex") })
    const merchantHeaders = { "merchant-id": merchant.merchantId as string }
    let orders = 0

    return {
      baseUrl,
      chain,
      partnerKey: partner,
      merchantId: merchant.merchantId,
      partner: (method, path, body) => api(method, path, body),
      admin: (effect) => run(effect),
      database: (effect) => run(effect),
      merchant: (method, path, body) => api(method, path, body, merchantHeaders),
      createPayment: async (request = {}) => {
        const body = {
          amount: { unit: `iso4217/${request.currency ?? "USD"}`, value: request.value ?? "1250" },
          referenceId: `order-${++orders}`,
          ...(request.checkout === undefined ? {} : { checkout: request.checkout }),
          ...(request.hold === undefined ? {} : { capture: "manual", ...request.hold })
        }
        const created = await api("POST", "/v1/merchant/payment", body, merchantHeaders)
        return { paymentId: created.paymentId, gatewayUrl: created.gatewayUrl }
      },
      merchantStatus: (paymentId) => api("GET", `/v1/merchant/payment/${paymentId}/status`, undefined, merchantHeaders),
      expireNow: (paymentId) =>
        run(Effect.gen(function*() {
          const repository = yield* PaymentRepository
          const current = Option.getOrThrow(yield* repository.findById(paymentId as PaymentId))
          const expired = new Payment({ ...current, expiresAt: Math.floor(current.createdAt / 1000) - 1, stateVersion: current.stateVersion + 1 })
          if (!(yield* repository.update(expired, []))) return yield* Effect.die(new Error(`payment ${paymentId} changed meanwhile`))
        })),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}
