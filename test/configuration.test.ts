import { Configuration } from "@paygate/adapters"
import { type Config, ConfigProvider, Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = process.cwd()

// Read by Node itself, documented for operators, never by paygate's code.
const nodeVariables = ["NODE_OPTIONS"]

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sources(path)
    return name.endsWith(".ts") ? [path] : []
  })

// The names in the first column of docs/configuration.md's "Environment variables" table.
const documentedVariables = () => {
  const page = readFileSync(join(root, "docs", "configuration.md"), "utf8")
  const section = page.slice(page.indexOf("## Environment variables"))
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("\n|")))
  return table.split("\n").filter((line) => line.startsWith("| `")).flatMap((line) =>
    [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)
  )
}

// The default cell of the row that names `variable` in docs/configuration.md's table.
const documentedDefault = (variable: string) => {
  const page = readFileSync(join(root, "docs", "configuration.md"), "utf8")
  const row = page.split("\n").find((line) => line.startsWith("| ") && line.split("|")[1]!.includes(`\`${variable}\``))
  if (row === undefined) throw new Error(`docs/configuration.md has no row for ${variable}`)
  return row.split("|")[3]!
}

// What Configuration answers for a variable nobody set.
const unset = <A>(config: Config.Config<A>): A => Effect.runSync(config.parse(ConfigProvider.fromUnknown({})))

describe("configuration", () => {
  it("docs/configuration.md's defaults are what Configuration answers when a variable is unset", () => {
    const { rateLimit, credentialCache, dashboardSessions, webhooks, payouts, tracing } = Configuration
    const defaults: Record<string, unknown> = {
      PAYGATE_DATA_DIR: unset(Configuration.dataDir),
      PORT: unset(Configuration.port),
      DATABASE_POOL_SIZE: unset(Configuration.databasePoolSize),
      MAX_CONNECTIONS_PER_CLIENT: unset(Configuration.maxConnectionsPerClient),
      ENVIRONMENT: unset(Configuration.environment),
      IDEMPOTENCY_LEASE_MS: unset(Configuration.idempotencyLeaseMs),
      PAYMENT_LIFETIME_SECONDS: unset(Configuration.paymentLifetimeSeconds),
      RATE_LIMIT_PER_SECOND: unset(rateLimit).perSecond,
      RATE_LIMIT_BURST: unset(rateLimit).burst,
      RATE_LIMIT_MAX_BUCKETS: unset(rateLimit).maxBuckets,
      CREDENTIAL_CACHE_SECONDS: unset(credentialCache).seconds,
      CREDENTIAL_CACHE_MAX_ENTRIES: unset(credentialCache).maxEntries,
      DASHBOARD_SESSION_IDLE_SECONDS: unset(dashboardSessions).idleSeconds,
      DASHBOARD_SESSION_MAX_SECONDS: unset(dashboardSessions).maxSeconds,
      DASHBOARD_SIGN_IN_CEILING_PER_MINUTE: unset(Configuration.dashboardSignInCeilingPerMinute),
      LOCAL_CHAIN_PORT: unset(Configuration.localChainPort),
      WORKER_IN_PROCESS: unset(Configuration.workerInProcess),
      WEBHOOK_TIMEOUT_MS: unset(webhooks.timeoutMs),
      WEBHOOK_ALLOW_PRIVATE: unset(webhooks.allowPrivate),
      PAYOUT_MAX_ATTEMPTS: unset(payouts).maxAttempts,
      OTEL_SERVICE_NAME: unset(tracing).serviceName,
      OTEL_SDK_DISABLED: unset(tracing).disabled
    }
    for (const [variable, value] of Object.entries(defaults)) {
      expect(documentedDefault(variable), variable).toContain(`\`${String(value)}\``)
    }
  })

  it("docs/configuration.md's table lists exactly the variables of Configuration, each once", () => {
    const listed = documentedVariables()
    expect(listed.length).toBe(new Set(listed).size)
    expect([...listed].sort()).toEqual([...Configuration.variables, ...nodeVariables].sort())
  })

  it("no module reads the environment but Configuration", () => {
    const readers = ["packages/domain/src", "packages/adapters/src", "packages/http/src", "packages/worker/src", "app"]
      .flatMap((dir) => sources(join(root, dir)))
      .filter((file) => !file.endsWith(join("adapters", "src", "Configuration.ts")))
      // Before the configuration is read, npm start moves its default ports off busy ones by setting
      // PORT / LOCAL_CHAIN_PORT, which Configuration then reads: it writes, it does not configure.
      .filter((file) => !file.endsWith(join("app", "Ports.ts")))
      .filter((file) => /\bConfig\.(String|Redacted|Port|Int|Number|Boolean|Literals|Literal|Duration|Url|NonEmptyString)\(|process\.env\b/.test(readFileSync(file, "utf8")))
    expect(readers).toEqual([])
  })
})
