/**
 * Test harness: the real `ServiceRoutes` over the production services (`Application.layer`: use cases,
 * SQL stores of `@paygate/adapters`; `ApiHost.layer`: settings, readiness) on a fresh PGlite, or on a fresh database of the
 * PostgreSQL at `TEST_DATABASE_URL`, with migrations applied; served in process
 * through `HttpRouter.toWebHandler` (no port). Tests talk HTTP to it with {@link TestServer.request}
 * and reach the same database and use cases with {@link TestServer.run}. A suite gets its server
 * with {@link useTestServer} (started before its tests, closed after them).
 */
import { Chain, CredentialAdmin, Database, GatewayServices, LedgerOpener, Migrations } from "@paygate/adapters"
import { ApiHost, Application } from "@paygate/app"
import {
  type ChainGateway,
  Commitment,
  type ConfirmRequests,
  type CredentialStore,
  type IdempotencyStore,
  type IdGenerator,
  LedgerBalances,
  type MerchantRepository,
  Merchants,
  type OptionIds,
  type Mode,
  type PartnerId,
  Payment,
  type PaymentId,
  type PaymentOptions,
  PaymentRepository,
  Payments,
  type PayoutRepository,
  type PayoutApprovals,
  type PayoutRetries,
  type ReceiptRefunds,
  type ReceiptStore,
  type RefundRepository,
  Refunds,
  type SettlementRepository,
  Settlements,
  type TeamStore
} from "@paygate/domain"
import { ConfigProvider, Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { FetchHttpClient, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe } from "vitest"
import { ApiServer, ServiceRoutes, CheckoutSettings, ClientAddress, RateLimiter, type RateLimitSettings, routerConfig } from "@paygate/http"
import { parseAdminCommand, runAdmin } from "@paygate/cli"
import { adminQuery, databaseAt } from "./PostgresAdmin.ts"
import { freePort } from "./FreePort.ts"
import { templateClause } from "./MigratedDatabases.ts"
import { migratedMemoryDatabase } from "./ReusedMemoryDatabases.ts"
import { openLedgerWindows } from "./ChainLedgerWindows.ts"
import { checkLedgerRecords } from "./LedgerRecordsAudit.ts"

/** The database a suite runs on. */
export interface TestDatabase {
  readonly name: string
  readonly layer: () => Layer.Layer<SqlClient.SqlClient, unknown>
}

/** An in-memory PGlite of its own per server (the run's migrated one, reused: `ReusedMemoryDatabases.ts`). */
export const pglite: TestDatabase = { name: "PGlite", layer: migratedMemoryDatabase }

/**
 * A fresh database on the PostgreSQL server at `url`, dropped when the server closes: named `name`
 * (for other processes to reach it, see `PostgresAdmin.ts`), else a new random name per server; a
 * copy of the run's migrated template when there is one (`MigratedTemplates.ts`).
 */
export const postgres = (url: string, name?: string): TestDatabase => ({
  name: "PostgreSQL",
  layer: () =>
    Layer.unwrap(
      Effect.gen(function*() {
        const database = name ?? `paygate_http_${randomBytes(6).toString("hex")}`
        yield* Effect.acquireRelease(
          adminQuery(url, `CREATE DATABASE ${database}${templateClause(url)}`),
          () => adminQuery(url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).pipe(Effect.ignore)
        )
        return Database.layerUrl(databaseAt(url, database), { maxConnections: 20 })
      })
    )
})

/** PGlite always; PostgreSQL too when `TEST_DATABASE_URL` is set. */
export const testDatabases: ReadonlyArray<TestDatabase> = [
  pglite,
  ...(process.env.TEST_DATABASE_URL ? [postgres(process.env.TEST_DATABASE_URL)] : [])
]

/** Registers `body` once per database of {@link testDatabases}, in a `describe` named after it. */
export const forEachDatabase = (title: string, body: (database: TestDatabase) => void) => {
  for (const database of testDatabases) describe(`${title} (${database.name})`, () => body(database))
}

/** The services the server runs on, reachable from tests through {@link TestServer.run}. */
export type Services =
  | SqlClient.SqlClient
  | PaymentRepository
  | MerchantRepository
  | SettlementRepository
  | RefundRepository
  | PayoutRepository
  | ReceiptStore
  | TeamStore
  | LedgerBalances
  | IdempotencyStore
  | CredentialStore
  | Payments
  | Merchants
  | Settlements
  | Refunds
  | PayoutRetries
  | PayoutApprovals
  | ReceiptRefunds
  | IdGenerator
  | CredentialAdmin
  | GatewayServices.GatewaySettings
  | OptionIds
  | PaymentOptions
  | ConfirmRequests
  | ChainGateway

/** The `gatewayUrl` base of test servers. */
export const checkoutUrl = "https://checkout.test/pay"

/**
 * The gateway settings of test servers: no chain (the options operation returns `options: []`), a fresh option id
 * secret, no sanctions list. Suites that need chains pass their own (see `makeTestServer`).
 */
export const testGateway = (): Layer.Layer<GatewayServices.GatewaySettings> =>
  GatewayServices.settings({ chains: Chain.ChainConfig.layerEmpty, secret: new Uint8Array(randomBytes(32)) })

// The production wiring of the services (`Application.layer`), over the test database with its migrations applied.
const servicesLayer = (database: TestDatabase, gateway: Layer.Layer<GatewayServices.GatewaySettings>) =>
  Application.layer(Migrations.layer.pipe(Layer.provideMerge(database.layer())), gateway)

/** Options of one web handler over the server's services. */
export interface HandlerOptions {
  /** `ENVIRONMENT` of the deployment; default `production`. */
  readonly environment?: "production" | "staging"
  /** Default: generous enough never to limit a test. */
  readonly rateLimit?: RateLimitSettings
  /** A limiter the test holds (to read its size); instead of `rateLimit`. */
  readonly rateLimiter?: RateLimiter["Service"]
  /** Other configuration variables of the handler (e.g. `DASHBOARD_SESSION_IDLE_SECONDS`). */
  readonly config?: Record<string, string>
  /**
   * The socket peer its requests seem to come from (an in-process request has none); default a
   * loopback address of its own (127.x.y.z), so handlers never share per-client limits.
   */
  readonly peer?: string
}

/** A real HTTP server over the test server's services (`ApiServer.layer`), on 127.0.0.1. */
export interface Listening {
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
}

/** A response, its body parsed as JSON when it is JSON. */
export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** One request: JSON `body` (or a raw string), credentials and extra headers. */
export interface RequestOptions {
  readonly apiKey?: string | undefined
  readonly headers?: Record<string, string> | undefined
  readonly body?: unknown
  /** Sent as is (with `Content-Type: application/json`), e.g. malformed JSON. */
  readonly rawBody?: string | undefined
}

/** A partner with a live and a sandbox key. */
export interface TestPartner {
  readonly partnerId: PartnerId
  readonly live: string
  readonly sandbox: string
}

type WebHandler = (request: Request) => Promise<Response>

/** The server under test. */
export interface TestServer {
  /** Sends a request to the default handler (production, no effective rate limit). */
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>
  /** A handler with other settings over the same services and database. */
  readonly handler: (options: HandlerOptions) => (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>
  /** `ApiServer.layer` over the same services and database, on a free port; `config`: its variables. */
  readonly listen: (config?: Record<string, string>) => Promise<Listening>
  /** `fetch` answered by the default handler, for `FetchHttpClient` (typed client tests). */
  readonly fetch: typeof globalThis.fetch
  /** Runs an effect with the server's services. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  /** Runs an operator CLI command (`npm run admin -- …`'s arguments) on the server's database; rejects with its message. */
  readonly admin: (...argv: Array<string>) => Promise<unknown>
  /** A new partner with a live and a sandbox key. */
  readonly partner: (pinnedVersion?: string) => Promise<TestPartner>
  /** Creates a merchant over HTTP and answers its id. */
  readonly merchant: (apiKey: string, name?: string) => Promise<string>
  /** A new wallet app of `mode`: answers its wallet `Api-Key`. */
  readonly walletKey: (mode: Mode) => Promise<string>
  /** Creates a payment over HTTP and answers its record. */
  readonly payment: (apiKey: string, merchantId: string, referenceId?: string) => Promise<any>
  /** Moves a waiting payment to `processing` (as an accepted confirm would). */
  readonly process: (paymentId: string) => Promise<void>
  /**
   * Moves a waiting payment through `processing` to `succeeded` (chain outcome), paid by default
   * 10,000 base units per minor unit of USDC on eip155:1 by a fixed account; `paid` overrides them.
   */
  readonly succeed: (paymentId: string, paid?: PaidWith) => Promise<void>
  /** Moves a waiting payment's `expiresAt` into the past (expired on read). */
  readonly expireNow: (paymentId: string) => Promise<void>
  readonly close: () => Promise<void>
}

let uniqueCounter = 0
/** A name no other test uses. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(uniqueCounter++).toString(36)}-${randomBytes(3).toString("hex")}`

const buyer = "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const changePayment = (id: string, patch: (payment: Payment) => Partial<Payment>) =>
  Effect.gen(function*() {
    const repo = yield* PaymentRepository
    const current = Option.getOrThrow(yield* repo.findById(id as PaymentId))
    const next = new Payment({ ...current, ...patch(current), stateVersion: current.stateVersion + 1 })
    if (!(yield* repo.update(next, []))) return yield* Effect.die(new Error(`payment ${id} changed meanwhile`))
  })

/** Who paid a test payment with what (see `TestServer.succeed`). */
export interface PaidWith {
  /** CAIP-10 payer. */
  readonly account?: string
  /** CAIP-19 token. */
  readonly asset?: string
  /** Token base units. */
  readonly tokenAmount?: bigint
}

// `txHash`: known already (so a running executor watches it instead of finding nothing to submit).
const toProcessing = (id: string, paid: PaidWith = {}, txHash: string | null = null) =>
  changePayment(id, (payment) => ({
    status: "processing",
    commitment: new Commitment({
      kind: "pull",
      account: paid.account ?? buyer,
      asset: paid.asset ?? usdc,
      tokenAmount: paid.tokenAmount ?? payment.value * 10_000n,
      fingerprint: `fp-${id}`,
      txHash,
      authorization: null,
      reference: null,
      walletName: "Test wallet",
      confirmedAt: Math.floor(payment.updatedAt / 1000)
    })
  }))

/** Options of {@link makeTestServer}. */
export interface TestServerOptions {
  /** Chains, option id secret and sanctions list of the gateway; default {@link testGateway}. */
  readonly gateway?: Layer.Layer<GatewayServices.GatewaySettings> | undefined
}

/** Starts a server on `database`. */
export const makeTestServer = async (database: TestDatabase, serverOptions: TestServerOptions = {}): Promise<TestServer> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(servicesLayer(database, serverOptions.gateway ?? testGateway()), scope)
  )
  const ledgerWindows = await openLedgerWindows(context)
  const disposers: Array<() => Promise<void>> = []

  const makeHandler = (options: HandlerOptions): WebHandler => {
    const peer = Option.some(options.peer ?? `127.${randomBytes(3).join(".")}`)
    const withPeer = HttpRouter.middleware(
      (httpEffect) => Effect.updateService(httpEffect, HttpServerRequest.HttpServerRequest, (request) => request.modify({ remoteAddress: peer })),
      { global: true }
    )
    const { dispose, handler } = HttpRouter.toWebHandler(
      Layer.merge(ServiceRoutes, withPeer).pipe(
        Layer.provide([
          options.rateLimiter === undefined
            ? RateLimiter.make(options.rateLimit ?? { perSecond: 1_000_000, burst: 1_000_000 })
            : Layer.succeed(RateLimiter, options.rateLimiter),
          ClientAddress.ClientAddress.layer,
          Layer.succeed(CheckoutSettings, CheckoutSettings.of({ ...Context.get(context, CheckoutSettings), checkoutUrl }))
        ]),
        Layer.provide(ApiHost.layer),
        Layer.provide(Layer.succeedContext(context)),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ ...options.config, ENVIRONMENT: options.environment ?? "production" }))),
        Layer.provide(HttpServer.layerServices)
      ),
      { disableLogger: true, routerConfig }
    )
    disposers.push(dispose)
    return (request) => handler(request)
  }

  const send = (handler: WebHandler) => async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers = new Headers(options.headers)
    if (options.apiKey !== undefined) headers.set("api-key", options.apiKey)
    let body: string | undefined
    if (options.rawBody !== undefined) body = options.rawBody
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json")
    const response = await handler(new Request(`http://paygate.test${path}`, { method, headers, body: body ?? null }))
    const text = await response.text()
    let parsed: unknown = undefined
    if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") parsed = JSON.parse(text)
    return { status: response.status, headers: response.headers, body: parsed, text }
  }

  const listen = async (config: Record<string, string> = {}): Promise<Listening> => {
    const port = await freePort()
    const listenScope = Effect.runSync(Scope.make())
    await Effect.runPromise(Layer.buildWithScope(
      ApiServer.layer.pipe(
        Layer.provide(ApiHost.layer),
        Layer.provide(Layer.succeedContext(context)),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ HOST: "127.0.0.1", ...config, PORT: String(port) })))
      ),
      listenScope
    ))
    return { url: `http://127.0.0.1:${port}`, port, close: () => Effect.runPromise(Scope.close(listenScope, Exit.void)) }
  }

  const main = makeHandler({})
  const request = send(main)
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => Effect.runPromise(Effect.provideContext(effect, context))

  const partner = (pinnedVersion?: string) =>
    run(Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const created = yield* admin.createPartner({ name: unique("partner"), pinnedVersion })
      const key = (mode: Mode) => Effect.map(admin.createApiKey({ kind: "partner", partnerId: created.id, mode }), (k) => k.apiKey)
      return { partnerId: created.id, live: yield* key("live"), sandbox: yield* key("sandbox") }
    }))

  const merchant = async (apiKey: string, name = unique("Shop")) => {
    const response = await request("POST", "/v1/merchants", {
      apiKey,
      headers: { "idempotency-key": unique("merchant") },
      body: { merchantName: name }
    })
    if (response.status !== 201) throw new Error(`merchant creation answered ${response.status}: ${response.text}`)
    return response.body.merchantId as string
  }

  const walletKey = (mode: Mode) =>
    run(Effect.gen(function*() {
      return (yield* (yield* CredentialAdmin).createApp({ name: unique("Wallet"), mode })).walletApiKey
    }))

  const payment = async (apiKey: string, merchantId: string, referenceId = unique("order")) => {
    const response = await request("POST", "/v1/payments", {
      apiKey,
      body: { merchantId, amount: { unit: "iso4217/USD", value: "1250" }, referenceId }
    })
    if (response.status !== 201) throw new Error(`payment creation answered ${response.status}: ${response.text}`)
    return response.body
  }

  return {
    request,
    handler: (options) => send(makeHandler(options)),
    listen,
    fetch: ((input: string | URL | Request, init?: RequestInit) => main(new Request(input, init))) as typeof globalThis.fetch,
    run,
    admin: (...argv) => {
      const command = parseAdminCommand(argv)
      // The ledger's opening is the operator's own (Operator.operator), not the API's.
      return command._tag === "Invalid" ? Promise.reject(new Error(command.message)) : run(runAdmin(command).pipe(Effect.provide(LedgerOpener.layer)))
    },
    partner,
    merchant,
    walletKey,
    payment,
    process: (id) => run(toProcessing(id)),
    succeed: (id, paid) =>
      run(Effect.gen(function*() {
        // A transaction pays for one payment only: one hash per payment.
        const txHash = `0x${createHash("sha256").update(id).digest("hex")}`
        yield* toProcessing(id, paid, txHash)
        yield* (yield* Payments).settleOutcome(id as PaymentId, "succeeded", txHash)
      })),
    expireNow: (id) => run(changePayment(id, (payment) => ({ expiresAt: Math.floor(payment.createdAt / 1000) - 1 }))),
    close: async () => {
      for (const dispose of disposers) await dispose()
      try {
        // The chain first: its watcher's catch-up records what the tests sent, which the records audit then covers.
        await ledgerWindows.close(`a test server (${database.name})`)
        await checkLedgerRecords(() => Effect.runPromise(Effect.provideContext(LedgerBalances.use((ledger) => ledger.audit), context)), `a test server (${database.name})`)
      } finally {
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }
  }
}

/** `FetchHttpClient` answering from a test server, for the typed client. */
export const fetchFrom = (server: TestServer) => Layer.succeed(FetchHttpClient.Fetch, server.fetch)

/**
 * The server of a suite: started on `database` before its tests (`beforeAll`) and closed after them
 * (`afterAll`). Call it where the suite declares its server; the answer forwards to the running
 * server, so hooks registered after it may use it.
 */
export const useTestServer = (
  database: TestDatabase,
  /** Or a function, called when the server starts (after the hooks registered before this call). */
  serverOptions: TestServerOptions | (() => TestServerOptions) = {}
): TestServer => {
  let started: TestServer | undefined
  beforeAll(async () => {
    started = await makeTestServer(database, typeof serverOptions === "function" ? serverOptions() : serverOptions)
  }, 120_000)
  afterAll(async () => {
    await started?.close()
  })
  const running = (): TestServer => {
    if (started === undefined) throw new Error("the suite's server is not running: use it inside tests or hooks")
    return started
  }
  return new Proxy({} as TestServer, { get: (_, member) => Reflect.get(running(), member) })
}
