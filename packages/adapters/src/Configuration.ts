/**
 * Every environment variable paygate reads, in one place, typed with effect's `Config`: no other
 * module reads the environment (test/configuration.test.ts checks it, and that the table of
 * docs/configuration.md lists exactly {@link variables}). Each package takes what it needs from here and keeps only its
 * own decisions (how settings combine, what an unset value means for it).
 *
 * Values that are unset or blank where the service's behaviour has a fallback are `Option`s.
 *
 * @module
 */
import { defaultLiveSettlementDelayMs } from "@paygate/domain"
import { Config, Option, Redacted, Schema } from "effect"

const names = new Set<string>()

// Registers a variable's name; every read below goes through it.
const name = (variable: string) => {
  names.add(variable)
  return variable
}

const nonBlank = <A>(read: Config.Config<Option.Option<A>>, text: (a: A) => string) =>
  read.pipe(Config.map(Option.filter((value: A) => text(value).trim() !== "")))

const optionalString = (variable: string) => nonBlank(Config.option(Config.String(name(variable))), (s) => s)
const optionalSecret = (variable: string) => nonBlank(Config.option(Config.Redacted(name(variable))), Redacted.value)
const atLeast = (min: number) => Config.map((n: number) => Math.max(min, n))
const optionalInt = (variable: string) => Config.option(Config.Int(name(variable)))

/** A keystore signer's passphrase, in the variable its `passphraseEnv` names (`ChainConfig`'s `signers`). */
export const signerPassphrase = (variable: string) => optionalSecret(variable)

/** Where the embedded database lives when `PAYGATE_DATA_DIR` is unset. */
export const defaultDataDir = "./data/pglite"

/** `DATABASE_URL`: PostgreSQL; unset or blank, the embedded PGlite. */
export const databaseUrl = optionalSecret("DATABASE_URL")

/**
 * `DATABASE_POOL_SIZE`: connections each process keeps to PostgreSQL, at least 2 (a signing key's nonce
 * sequence holds one while its sender records on another).
 */
export const databasePoolSize = Config.Int(name("DATABASE_POOL_SIZE")).pipe(Config.withDefault(10), atLeast(2))

/** `PAYGATE_DATA_DIR`: the embedded database's directory (local key files live beside it). */
export const dataDir = Config.String(name("PAYGATE_DATA_DIR")).pipe(Config.withDefault(defaultDataDir))

/** `PORT`: the API's HTTP port. */
export const port = Config.Port(name("PORT")).pipe(Config.withDefault(3000))

/** `HOST`: the address the API listens on; unset, all interfaces, or 127.0.0.1 for the embedded local set-up. */
export const host = optionalString("HOST")

/** `TRUSTED_PROXIES`: comma-separated addresses and CIDR blocks of the proxies in front of the API; unset, none. */
export const trustedProxies = optionalString("TRUSTED_PROXIES")

/** `MAX_CONNECTIONS_PER_CLIENT`: open connections one client address may hold (trusted proxies are not held to it). */
export const maxConnectionsPerClient = Config.Int(name("MAX_CONNECTIONS_PER_CLIENT")).pipe(Config.withDefault(128), atLeast(1))

/** `PUBLIC_URL`, `CHECKOUT_URL`, `DATA_COLLECTION_URL`: the addresses the API hands out (see `CheckoutSettings`). */
export const publicUrl = Config.option(Config.String(name("PUBLIC_URL")))
export const checkoutUrl = Config.option(Config.String(name("CHECKOUT_URL")))
export const dataCollectionUrl = Config.option(Config.String(name("DATA_COLLECTION_URL")))

const originsOf = (text: string) => text.split(",").map((part) => part.trim().replace(/\/$/, "")).filter((part) => part !== "")

// An origin as a browser sends it: http(s), host and port only.
const badOrigin = (text: string) =>
  originsOf(text).find((origin) => {
    const url = URL.parse(origin)
    return url === null || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== origin
  })

/**
 * `WALLET_ORIGINS`: comma-separated origins (`https://wallet.example`) of wallet pages that may embed
 * the data collection page and receive its completion message; unset or blank, none (only this service's own pages).
 */
export const walletOrigins = Config.schema(
  Schema.String.check(Schema.makeFilter((text: string) => {
    const bad = badOrigin(text)
    return bad === undefined || `${JSON.stringify(bad)} is not an origin: scheme, host and optional port, e.g. https://wallet.example`
  })),
  name("WALLET_ORIGINS")
).pipe(Config.map(originsOf), Config.withDefault([] as ReadonlyArray<string>))

/** `ENVIRONMENT`: `staging` deployments refuse live keys (API rules §2). */
export const environment = Config.Literals(["production", "staging"], name("ENVIRONMENT")).pipe(Config.withDefault("production"))

/** How long an unanswered idempotency key is held by its request when `IDEMPOTENCY_LEASE_MS` is unset. */
export const defaultIdempotencyLeaseMs = 30_000

/** `IDEMPOTENCY_LEASE_MS`: how long an unanswered idempotency key is held by its request (at least 1). */
export const idempotencyLeaseMs = Config.Int(name("IDEMPOTENCY_LEASE_MS")).pipe(Config.withDefault(defaultIdempotencyLeaseMs), atLeast(1))

/** `PAYMENT_LIFETIME_SECONDS`: how long a new payment waits for its buyer before it expires (at least 60; 15 minutes by default). */
export const paymentLifetimeSeconds = Config.Int(name("PAYMENT_LIFETIME_SECONDS")).pipe(Config.withDefault(15 * 60), atLeast(60))

/**
 * `SETTLEMENT_DESTINATION_DELAY_MS`, `SANDBOX_SETTLEMENT_DESTINATION_DELAY_MS`: how long a settlement
 * destination added or changed waits before payments are forwarded to it, for live and sandbox
 * merchants (at least 0; a day and none by default).
 */
export const settlementDestinationDelay = Config.all({
  live: Config.Int(name("SETTLEMENT_DESTINATION_DELAY_MS")).pipe(Config.withDefault(defaultLiveSettlementDelayMs), atLeast(0)),
  sandbox: Config.Int(name("SANDBOX_SETTLEMENT_DESTINATION_DELAY_MS")).pipe(Config.withDefault(0), atLeast(0))
})

/** `RATE_LIMIT_PER_SECOND`, `RATE_LIMIT_BURST`: the per-credential token bucket; `RATE_LIMIT_MAX_BUCKETS`: how many are held at most. */
export const rateLimit = Config.all({
  perSecond: Config.Number(name("RATE_LIMIT_PER_SECOND")).pipe(Config.withDefault(50)),
  burst: Config.Number(name("RATE_LIMIT_BURST")).pipe(Config.withDefault(100)),
  maxBuckets: Config.Int(name("RATE_LIMIT_MAX_BUCKETS")).pipe(Config.withDefault(100_000), atLeast(1))
})

/** `CREDENTIAL_CACHE_SECONDS` (0 turns the cache off), `CREDENTIAL_CACHE_MAX_ENTRIES`. */
export const credentialCache = Config.all({
  seconds: Config.Number(name("CREDENTIAL_CACHE_SECONDS")).pipe(Config.withDefault(10)),
  maxEntries: Config.Int(name("CREDENTIAL_CACHE_MAX_ENTRIES")).pipe(Config.withDefault(10_000))
})

/** `DASHBOARD_SESSION_IDLE_SECONDS`, `DASHBOARD_SESSION_MAX_SECONDS`: when an unused, and any, dashboard session ends (at least 1). */
export const dashboardSessions = Config.all({
  idleSeconds: Config.Int(name("DASHBOARD_SESSION_IDLE_SECONDS")).pipe(Config.withDefault(3600), atLeast(1)),
  maxSeconds: Config.Int(name("DASHBOARD_SESSION_MAX_SECONDS")).pipe(Config.withDefault(12 * 3600), atLeast(1))
})

/** `DASHBOARD_SIGN_IN_CEILING_PER_MINUTE`: failed dashboard sign-ins allowed per minute from all clients together (also its burst; at least 1). */
export const dashboardSignInCeilingPerMinute = Config.Int(name("DASHBOARD_SIGN_IN_CEILING_PER_MINUTE")).pipe(Config.withDefault(120), atLeast(1))

/** Name of the variable holding the chains (JSON, see `ChainConfig`). */
export const chainsVariable = name("PAYGATE_CHAINS")

/** `PAYGATE_CHAINS`: the chains and tokens accepted, as JSON text; unset or blank, none (or a local chain under `npm start`). */
export const chains = optionalString(chainsVariable)

/** `LOCAL_CHAIN_PORT`: where `npm start`'s local chain (without `PAYGATE_CHAINS`) answers JSON-RPC; 0 picks a free port. */
export const localChainPort = Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 })), name("LOCAL_CHAIN_PORT")).pipe(
  Config.withDefault(8545)
)

/** `WORKER_IN_PROCESS`: whether `npm start` runs the worker in its own process. */
export const workerInProcess = Config.Boolean(name("WORKER_IN_PROCESS")).pipe(Config.withDefault(true))

/** `OPTION_ID_SECRET`: base64 HMAC key of option ids (see `GatewayServices`). */
export const optionIdSecret = Config.option(Config.Redacted(name("OPTION_ID_SECRET")))

/** Name of the variable naming the sanctions list file. */
export const sanctionsFileVariable = name("SANCTIONS_FILE")

/** `SANCTIONS_FILE`: the sanctions list (see `SanctionsList`); unset or blank, no screening. */
export const sanctionsFile = optionalString(sanctionsFileVariable)

/** The named networks an operator can list in `PAYGATE_NETWORKS` (presets: see `chain/NetworkPresets`). */
export const networkNames = [
  "ethereum",
  "ethereum-sepolia",
  "base",
  "base-sepolia",
  "optimism",
  "optimism-sepolia",
  "polygon",
  "polygon-amoy",
  "arbitrum",
  "arbitrum-sepolia"
] as const
/** A named network. */
export type NetworkName = typeof networkNames[number]

/** `PAYGATE_RPC_<NETWORK>`: the variable holding a named network's RPC URL, e.g. `PAYGATE_RPC_BASE_SEPOLIA`. */
export const rpcVariable = (network: NetworkName) => `PAYGATE_RPC_${network.toUpperCase().replaceAll("-", "_")}`

/** `PAYGATE_DEPOSIT_FACTORY_<NETWORK>`: a named network's `DepositFactoryV2` address, e.g. `PAYGATE_DEPOSIT_FACTORY_BASE`. */
export const depositFactoryVariable = (network: NetworkName) =>
  `PAYGATE_DEPOSIT_FACTORY_${network.toUpperCase().replaceAll("-", "_")}`

/** `PAYGATE_DEPOSIT_FACTORY_V1_<NETWORK>`: a named network's first `DepositFactory`, whose addresses are still swept. */
export const depositFactoryV1Variable = (network: NetworkName) =>
  `PAYGATE_DEPOSIT_FACTORY_V1_${network.toUpperCase().replaceAll("-", "_")}`

/** `PAYGATE_SUBSCRIPTION_VAULT_<NETWORK>`: a named network's `SubscriptionVault` address, e.g. `PAYGATE_SUBSCRIPTION_VAULT_BASE`. */
export const subscriptionVaultVariable = (network: NetworkName) =>
  `PAYGATE_SUBSCRIPTION_VAULT_${network.toUpperCase().replaceAll("-", "_")}`

/** `PAYGATE_PAYMENT_ESCROW_<NETWORK>`: a named network's `PaymentEscrow` address, e.g. `PAYGATE_PAYMENT_ESCROW_BASE`. */
export const paymentEscrowVariable = (network: NetworkName) =>
  `PAYGATE_PAYMENT_ESCROW_${network.toUpperCase().replaceAll("-", "_")}`

/** A secret given in `<VAR>` itself or in the file `<VAR>_FILE` names (e.g. a mounted secret). */
export interface SecretSource {
  readonly variable: string
  readonly value: Option.Option<Redacted.Redacted<string>>
  readonly file: Option.Option<string>
}

const secretSource = (variable: string): Config.Config<SecretSource> =>
  Config.all({ value: optionalSecret(variable), file: optionalString(`${variable}_FILE`) }).pipe(
    Config.map((read) => ({ variable, ...read }))
  )

/** One optional address variable per named network, e.g. each network's `PAYGATE_SUBSCRIPTION_VAULT_<NETWORK>`. */
const perNetwork = (variable: (network: NetworkName) => string) =>
  Config.all(Object.fromEntries(networkNames.map((network) => [network, optionalString(variable(network))])))

/**
 * The named networks (`PAYGATE_NETWORKS`, comma-separated; unset or blank, none) with what only the
 * operator knows: each network's RPC URL (`PAYGATE_RPC_<NETWORK>`, a secret: provider URLs carry API
 * keys), the executor's key, the collection address and, optionally, its key for payouts and each
 * network's deposit factory (`PAYGATE_DEPOSIT_FACTORY_<NETWORK>`; unset, that network offers no deposit addresses)
 * and its first-version factory (`PAYGATE_DEPOSIT_FACTORY_V1_<NETWORK>`), still swept, and each network's
 * subscription vault (`PAYGATE_SUBSCRIPTION_VAULT_<NETWORK>`; unset, that network takes no subscription) and
 * payment escrow (`PAYGATE_PAYMENT_ESCROW_<NETWORK>`; unset, that network takes no held payment).
 */
export const networks = Config.all({
  names: optionalString("PAYGATE_NETWORKS"),
  rpcUrls: Config.all(Object.fromEntries(networkNames.map((network) => [network, optionalSecret(rpcVariable(network))]))),
  executorKey: secretSource("PAYGATE_EXECUTOR_KEY"),
  collectionAddress: optionalString("PAYGATE_COLLECTION_ADDRESS"),
  collectionKey: secretSource("PAYGATE_COLLECTION_KEY"),
  depositFactories: perNetwork(depositFactoryVariable),
  firstDepositFactories: perNetwork(depositFactoryV1Variable),
  subscriptionVaults: perNetwork(subscriptionVaultVariable),
  paymentEscrows: perNetwork(paymentEscrowVariable)
})
/** The named networks' configuration, as read. */
export type NetworksConfig = typeof networks extends Config.Config<infer A> ? A : never

/** Webhook settings: the secrets' key, delivery timeout, retry schedule, private addresses. */
export const webhooks = {
  /** `WEBHOOK_SECRET_KEY`: base64 key that encrypts stored secrets; unset or blank, a local key file. */
  secretKey: optionalSecret("WEBHOOK_SECRET_KEY"),
  /** `WEBHOOK_TIMEOUT_MS`: how long a delivery attempt may take. */
  timeoutMs: Config.Int(name("WEBHOOK_TIMEOUT_MS")).pipe(Config.withDefault(15_000)),
  /** `WEBHOOK_RETRY_SCHEDULE_MS`: comma-separated delays; unset or blank, API rules §6's. */
  retryScheduleMs: optionalString("WEBHOOK_RETRY_SCHEDULE_MS"),
  /** `WEBHOOK_ALLOW_PRIVATE`: allow endpoints on private addresses (development). */
  allowPrivate: Config.Boolean(name("WEBHOOK_ALLOW_PRIVATE")).pipe(Config.withDefault(false))
}

/** The worker's tunables; unset, the worker's defaults (`defaultWorkerSettings`). */
export const worker = Config.all({
  pollIntervalMs: optionalInt("WORKER_POLL_MS"),
  concurrency: optionalInt("WORKER_CONCURRENCY"),
  perEndpointConcurrency: optionalInt("WORKER_PER_ENDPOINT_CONCURRENCY"),
  deliveryLeaseMs: optionalInt("WORKER_DELIVERY_LEASE_MS"),
  outboxLeaseMs: optionalInt("WORKER_OUTBOX_LEASE_MS"),
  shutdownGraceMs: optionalInt("WORKER_SHUTDOWN_GRACE_MS")
})

// A leased-work job's timings (`<prefix>_POLL_MS`, …); unset, the job's defaults.
const leasedWorkFields = (prefix: string) => ({
  pollIntervalMs: optionalInt(`${prefix}_POLL_MS`),
  leaseMs: optionalInt(`${prefix}_LEASE_MS`),
  pendingRecheckMs: optionalInt(`${prefix}_PENDING_RECHECK_MS`),
  unknownRecheckMs: optionalInt(`${prefix}_UNKNOWN_RECHECK_MS`)
})
const leasedWork = (prefix: string) => Config.all(leasedWorkFields(prefix))

/** `EXECUTOR_POLL_MS`, `EXECUTOR_LEASE_MS`, `EXECUTOR_PENDING_RECHECK_MS`, `EXECUTOR_UNKNOWN_RECHECK_MS`. */
export const executor = leasedWork("EXECUTOR")

/**
 * `EXECUTOR_DROPPED_RESEND_MS`: how long a payment's transaction may be unknown to the node before
 * its authorization is sent again; unset, the domain's `ExecutionPolicy` default (30 s).
 */
export const executorDroppedResendMs = Config.option(Config.Int(name("EXECUTOR_DROPPED_RESEND_MS")).pipe(atLeast(0)))

/** `WATCHER_*`: the chain watcher's pause, lease, blocks per read and first-scan look-back; unset, its defaults. */
export const watcher = Config.all({
  pollIntervalMs: optionalInt("WATCHER_POLL_MS"),
  leaseMs: optionalInt("WATCHER_LEASE_MS"),
  batchBlocks: optionalInt("WATCHER_BATCH_BLOCKS"),
  lookbackBlocks: optionalInt("WATCHER_LOOKBACK_BLOCKS")
})

/** `PAYOUT_*`: the payout jobs' timings, the pause before a failed payout is retried, and its attempts. */
export const payouts = Config.all({
  leased: leasedWork("PAYOUT"),
  retryMs: optionalInt("PAYOUT_RETRY_MS"),
  maxAttempts: Config.Int(name("PAYOUT_MAX_ATTEMPTS")).pipe(Config.withDefault(5), atLeast(1))
})

/**
 * `SUBSCRIPTION_POLL_MS`, `SUBSCRIPTION_LEASE_MS`, `SUBSCRIPTION_UNKNOWN_RECHECK_MS`: the subscription
 * job's timings (each look sets a subscription's next one itself, so it has no pending recheck).
 */
export const subscriptions = Config.all({
  pollIntervalMs: optionalInt("SUBSCRIPTION_POLL_MS"),
  leaseMs: optionalInt("SUBSCRIPTION_LEASE_MS"),
  unknownRecheckMs: optionalInt("SUBSCRIPTION_UNKNOWN_RECHECK_MS")
})

/**
 * `HOLD_*`: the held-payments job's timings, `HOLD_WAITING_RECHECK_MS` for payments with nothing to do yet and
 * `HOLD_DORMANT_RECHECK_MS` for those left past their deadline for the buyer's reclaim.
 */
export const holds = Config.all({
  ...leasedWorkFields("HOLD"),
  waitingRecheckMs: optionalInt("HOLD_WAITING_RECHECK_MS"),
  dormantRecheckMs: optionalInt("HOLD_DORMANT_RECHECK_MS")
})

/** `METRICS_TOKEN`: the API's `GET /metrics` asks for `Authorization: Bearer <it>`; unset or blank, no credential. */
export const metricsToken = optionalSecret("METRICS_TOKEN")

/** `WORKER_METRICS_PORT`: `npm run worker` serves `GET /metrics` on it; unset, no listener. */
export const workerMetricsPort = Config.option(Config.Port(name("WORKER_METRICS_PORT")))

/** OpenTelemetry tracing (see `Tracing`): off unless an endpoint is set. */
export const tracing = Config.all({
  disabled: Config.Boolean(name("OTEL_SDK_DISABLED")).pipe(Config.withDefault(false)),
  tracesEndpoint: optionalString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  endpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  serviceName: Config.String(name("OTEL_SERVICE_NAME")).pipe(Config.withDefault("paygate")),
  headers: optionalString("OTEL_EXPORTER_OTLP_HEADERS"),
  resourceAttributes: optionalString("OTEL_RESOURCE_ATTRIBUTES")
})

// One of `allowed`, any case; unset or blank, none.
const optionalChoice = <A extends string>(variable: string, allowed: ReadonlyArray<A>) =>
  Config.schema(
    Schema.String.check(Schema.makeFilter((text: string) =>
      text.trim() === "" || allowed.includes(text.trim().toLowerCase() as A) || `must be one of ${allowed.join(", ")}`
    )),
    name(variable)
  ).pipe(
    Config.map((text) => (text.trim() === "" ? Option.none<A>() : Option.some(text.trim().toLowerCase() as A))),
    Config.withDefault(Option.none<A>())
  )

/** `LOG_FORMAT`: `json` (one JSON object per line) or `pretty` (short lines for a person); unset, pretty on a terminal, else JSON. */
export const logFormat = optionalChoice("LOG_FORMAT", ["json", "pretty"] as const)

/** `LOG_LEVEL`: the least severe lines logged; unset, `info`. */
export const logLevel = optionalChoice("LOG_LEVEL", ["trace", "debug", "info", "warn", "error", "fatal", "none"] as const)

/**
 * The name of every variable above: a copy taken as this module loads, so that variables named at
 * run time (a keystore's passphrase variable, named in `PAYGATE_CHAINS`) are not among them.
 */
export const variables: ReadonlySet<string> = new Set(names)
