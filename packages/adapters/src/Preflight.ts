/**
 * `npm run admin -- preflight`: what a live deployment needs, checked from its own configuration
 * before it takes a first live payment. Each check answers one line and, when it fails, what to do;
 * nothing is written (the database's pending migrations aside, as every admin command runs them)
 * and no secret or RPC URL is ever repeated.
 *
 * @module
 */
import { Cause, Duration, Effect, type Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { formatEther } from "viem"
import * as NetworkChecks from "./chain/NetworkChecks.ts"
import { presets } from "./chain/NetworkPresets.ts"
import { namedNetworks } from "./chain/ChainSource.ts"
import * as Configuration from "./Configuration.ts"
import { CredentialAdmin } from "./CredentialAdmin.ts"
import { decodeSecret } from "./GatewayServices.ts"
import * as Migrations from "./Migrations.ts"
import { parseKey } from "./webhooks/SecretCipher.ts"

/** One line of the checklist: what was checked, and when it failed, how to fix it. */
export interface Check {
  readonly ok: boolean
  readonly label: string
  readonly fix?: string | undefined
}

const pass = (label: string): Check => ({ ok: true, label })
const failed = (label: string, fix: string): Check => ({ ok: false, label, fix })

// The message of a failure, whatever it failed with (never a value: the errors read here name variables).
const reason = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

const databaseCheck = Effect.gen(function*() {
  if (Option.isSome(yield* Configuration.databaseUrl)) return pass("database: an external PostgreSQL (DATABASE_URL)")
  return failed(
    "database: the embedded PGlite (DATABASE_URL is not set)",
    "set DATABASE_URL=postgres://user:password@host:5432/paygate: one PostgreSQL 15+ that the API and the worker share, backed up"
  )
})

const localHost = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/

const publicUrlCheck = Effect.gen(function*() {
  const fix = "set PUBLIC_URL=https://pay.example.com: the HTTPS address buyers and partners reach (TLS ends at your proxy)"
  const configured = yield* Configuration.publicUrl
  if (Option.isNone(configured)) return failed("public URL: PUBLIC_URL is not set", fix)
  const url = URL.parse(configured.value)
  if (url === null || url.protocol !== "https:") return failed(`public URL: ${configured.value} is not an HTTPS URL`, fix)
  if (localHost.test(url.hostname)) return failed(`public URL: ${configured.value} is this machine, not a public address`, fix)
  return pass(`public URL: ${url.origin}`)
})

const generate = "generate one with: openssl rand -base64 32; give every process (API and worker) the same"

// Secrets every process must share: a generated one would differ per process and per restart.
const secretChecks = Effect.gen(function*() {
  const optionId = yield* Configuration.optionIdSecret
  const webhookKey = yield* Configuration.webhooks.secretKey
  const option = Option.isNone(optionId)
    ? failed("OPTION_ID_SECRET is not set (option ids would not survive a restart or work across processes)", `set it: ${generate}`)
    : yield* decodeSecret(Redacted.value(optionId.value), "OPTION_ID_SECRET").pipe(
      Effect.match({
        onFailure: (error) => failed(`OPTION_ID_SECRET: ${error.message}`, generate),
        onSuccess: () => pass("OPTION_ID_SECRET is set (the same in every process)")
      })
    )
  const webhook = Option.isNone(webhookKey)
    ? failed("WEBHOOK_SECRET_KEY is not set (webhook secrets would be encrypted with a key kept on one machine)", `set it: ${generate}`)
    : yield* parseKey(Redacted.value(webhookKey.value)).pipe(
      Effect.match({
        onFailure: (error) => failed(error.message, generate),
        onSuccess: () => pass("WEBHOOK_SECRET_KEY is set (the same in every process)")
      })
    )
  return [option, webhook]
})

const deployCommand = (network: string) => `npm run -s admin -- deposit-factory deploy --network ${network}`
const vaultDeployCommand = (network: string) => `npm run -s admin -- subscription-vault deploy --network ${network}`
const escrowDeployCommand = (network: string) => `npm run -s admin -- payment-escrow deploy --network ${network}`

const networkChecks = Effect.gen(function*() {
  const configured = yield* Configuration.networks
  if (Option.isSome(yield* Configuration.chains)) {
    return [failed("networks: PAYGATE_CHAINS is set", "preflight checks named networks: set PAYGATE_NETWORKS=base (and its PAYGATE_RPC_BASE) instead")]
  }
  if (Option.isNone(configured.names)) {
    return [failed("networks: PAYGATE_NETWORKS is not set", "set PAYGATE_NETWORKS=base, PAYGATE_RPC_BASE, PAYGATE_EXECUTOR_KEY and PAYGATE_COLLECTION_ADDRESS")]
  }
  const named = yield* Effect.result(namedNetworks(configured, configured.names.value))
  if (named._tag === "Failure") return [failed(`networks: ${named.failure.message}`, "fix that variable (docs/going-live.md lists them)")]
  const { chains, networks } = named.success
  const checks: Array<Check> = []
  if (!networks.some((network) => !presets[network].testnet)) {
    checks.push(failed(`networks: ${networks.join(", ")} are test networks only: live payments need a real one`, "add it, e.g. PAYGATE_NETWORKS=base"))
  }
  for (const network of networks) {
    const run = <A, E extends { readonly message: string }>(check: Effect.Effect<A, E>) =>
      Effect.result(check.pipe(Effect.timeout(Duration.seconds(30)), Effect.mapError((e) => ({ message: "message" in e ? e.message : "no answer within 30 s" }))))
    const token = yield* run(NetworkChecks.checkToken(chains, network))
    if (token._tag === "Failure") {
      checks.push(failed(token.failure.message, `give ${Configuration.rpcVariable(network)} an RPC URL of ${presets[network].networkName}`))
      continue
    }
    const { chainId, domain } = token.success
    checks.push(pass(`${network}: the RPC serves ${chainId}; USDC's EIP-712 domain "${domain.name}" version "${domain.version}"`))
    const executor = yield* run(NetworkChecks.checkExecutor(chains, network))
    checks.push(
      executor._tag === "Failure"
        ? failed(executor.failure.message, `send ${presets[network].networkName}'s native currency (ETH on Base) to the executor for gas`)
        : pass(`${network}: the executor ${executor.success.executor} holds ${formatEther(executor.success.balance)} for gas`)
    )
    const factory = yield* run(NetworkChecks.checkFactory(chains, network))
    const variable = Configuration.depositFactoryVariable(network)
    checks.push(
      factory._tag === "Failure"
        ? failed(factory.failure.message, `deploy one: ${deployCommand(network)}, then set ${variable} to its address`)
        : factory.success === undefined
        ? failed(`${network}: no deposit factory (${variable} is not set): buyers cannot pay from an exchange`, `deploy it: ${deployCommand(network)}, then set ${variable}`)
        : pass(`${network}: the deposit factory ${factory.success} is the executor's and sweeps to the collection address`)
    )
    // Subscriptions are optional: a network without a vault only takes none, so only a configured one is checked.
    const vault = yield* run(NetworkChecks.checkVault(chains, network))
    if (vault._tag === "Failure") {
      const fix = `deploy one: ${vaultDeployCommand(network)}, then set ${Configuration.subscriptionVaultVariable(network)} to its address`
      checks.push(failed(vault.failure.message, fix))
    } else if (vault.success !== undefined) {
      checks.push(pass(`${network}: the subscription vault ${vault.success} charges through Permit2`))
    }
    // Held payments are optional too: only a configured escrow is checked.
    const escrow = yield* run(NetworkChecks.checkEscrow(chains, network))
    if (escrow._tag === "Failure") {
      const fix = `deploy one: ${escrowDeployCommand(network)}, then set ${Configuration.paymentEscrowVariable(network)} to its address`
      checks.push(failed(escrow.failure.message, fix))
    } else if (escrow.success !== undefined) {
      checks.push(pass(`${network}: the payment escrow ${escrow.success} holds payments`))
    }
  }
  return checks
})

// A live partner with a live key, and a live merchant, in the deployment's database.
const accountChecks = (database: Layer.Layer<CredentialAdmin | SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    yield* Migrations.run
    const admin = yield* CredentialAdmin
    const partners = (yield* admin.listPartners).filter((partner) => partner.activeKeys.live > 0)
    const merchants = (yield* admin.listMerchants({ mode: "live" })).filter((merchant) => !merchant.deleted)
    const createPartner = `npm run -s admin -- partner create --name "Your company" (prints its live API key once)`
    return [
      partners.length === 0
        ? failed("live partner: none with a live API key", createPartner)
        : pass(`live partner: ${partners.map((partner) => partner.partnerId).join(", ")}`),
      merchants.length === 0
        ? failed("live merchant: none", `npm run -s admin -- merchant create --partner ${partners[0]?.partnerId ?? "ptn_…"} --name "Your shop"`)
        : pass(`live merchant: ${merchants.map((merchant) => merchant.merchantId).join(", ")}`)
    ]
  }).pipe(
    Effect.provide(database),
    Effect.catchCause((cause) => Effect.succeed([failed(`database: cannot be read (${reason(cause)})`, "check DATABASE_URL and that PostgreSQL answers")]))
  )

/** Every check, in the order of the going-live guide. */
export const preflight = (database: Layer.Layer<CredentialAdmin | SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    const checks = [
      yield* databaseCheck,
      yield* publicUrlCheck,
      ...(yield* secretChecks),
      ...(yield* networkChecks),
      ...(yield* accountChecks(database))
    ]
    return checks
  }).pipe(Effect.catchCause((cause) => Effect.succeed([failed(`configuration: ${reason(cause)}`, "fix that variable")])))
