/**
 * `npm run admin -- preflight` against anvil at Base's real chain id (8453), the preset's USDC
 * placed at its address: a configuration a newcomer might try to go live with fails with one line
 * per problem and its fix; following the fixes (an external PostgreSQL, a public HTTPS URL, the
 * shared secrets, a funded executor, the factory `deposit-factory deploy` deploys, a live partner
 * and `merchant create`'s live merchant) passes; a subscription vault is checked only when configured
 * (the one `subscription-vault deploy` deploys passes, an address without code fails), and so is a
 * payment escrow (the one `payment-escrow deploy` deploys passes, an address without code fails).
 */
import { Chain, Database } from "@paygate/adapters"
import { Effect, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generatePrivateKey } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { npm } from "./support/NpmStart.ts"
import { type PresetChain, presetChain } from "./support/PresetChain.ts"

const { anvilAccount, NetworkPresets } = Chain
const base = NetworkPresets.presets.base

const sql = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      yield* (yield* SqlClient.SqlClient).unsafe(statement)
    }).pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 1 })))
  )

describe("npm run admin -- preflight (anvil at chain id 8453)", () => {
  const scope = Effect.runSync(Scope.make())
  let chain: PresetChain
  let dir: string
  let databaseUrl: string
  const serverUrl = process.env.TEST_DATABASE_URL!
  const database = `paygate_preflight_${randomBytes(6).toString("hex")}`

  beforeAll(async () => {
    chain = await presetChain(scope, base.chainNumber, base.usdc, [])
    dir = await mkdtemp(join(tmpdir(), "paygate-preflight-"))
    await sql(serverUrl, `CREATE DATABASE ${database}`)
    const target = new URL(serverUrl)
    target.pathname = `/${database}`
    databaseUrl = target.toString()
  }, 120_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Effect.void as never))
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
    await sql(serverUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
  })

  const admin = (env: Record<string, string>, ...args: Array<string>) => npm(["run", "-s", "admin", "--", ...args], env)
  const lines = (stdout: string) => stdout.split("\n").filter((line) => line.startsWith("✓") || line.startsWith("✗"))

  it("fails a sandbox-like configuration with one line per problem and its fix, and passes once every fix is applied", async () => {
    const network = {
      PAYGATE_NETWORKS: "base",
      PAYGATE_RPC_BASE: chain.rpcUrl,
      PAYGATE_COLLECTION_ADDRESS: anvilAccount(9).address
    }
    // The embedded database, no public URL or secrets, an executor with no gas, no deposit factory, nobody live.
    const failing = await admin({ ...network, PAYGATE_DATA_DIR: join(dir, "pglite"), PAYGATE_EXECUTOR_KEY: generatePrivateKey() }, "preflight")
    expect(failing.code, failing.stderr).toBe(1)
    const failed = lines(failing.stdout)
    expect(failed).toEqual([
      expect.stringMatching(/^✗ database: the embedded PGlite \(DATABASE_URL is not set\) — fix: set DATABASE_URL=postgres:/),
      expect.stringMatching(/^✗ public URL: PUBLIC_URL is not set — fix: set PUBLIC_URL=https:/),
      expect.stringMatching(/^✗ OPTION_ID_SECRET is not set .* — fix: set it: generate one with: openssl rand -base64 32/),
      expect.stringMatching(/^✗ WEBHOOK_SECRET_KEY is not set .* — fix: set it: generate one with: openssl rand -base64 32/),
      `✓ base: the RPC serves eip155:8453; USDC's EIP-712 domain "Test USD Coin" version "2"`,
      expect.stringMatching(/^✗ base: the executor 0x[0-9a-fA-F]{40} has no native currency for gas.* — fix: send Base's native currency/),
      "✗ base: no deposit factory (PAYGATE_DEPOSIT_FACTORY_BASE is not set): buyers cannot pay from an exchange — fix: deploy it: " +
      "npm run -s admin -- deposit-factory deploy --network base, then set PAYGATE_DEPOSIT_FACTORY_BASE",
      expect.stringMatching(/^✗ live partner: none with a live API key — fix: npm run -s admin -- partner create --name/),
      expect.stringMatching(/^✗ live merchant: none — fix: npm run -s admin -- merchant create --partner ptn_… --name/)
    ])
    expect(failing.stdout).toContain("8 of 9 checks failed")
    // Neither the RPC URL nor a key is ever printed.
    expect(failing.stdout).not.toContain(chain.rpcUrl)

    // The fixes, in the guide's order.
    const live = {
      ...network,
      DATABASE_URL: databaseUrl,
      PUBLIC_URL: "https://pay.example.com",
      OPTION_ID_SECRET: randomBytes(32).toString("base64"),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      PAYGATE_EXECUTOR_KEY: anvilAccount(0).privateKey
    }
    const deployed = await admin(live, "deposit-factory", "deploy", "--network", "base")
    expect(deployed.code, deployed.stderr).toBe(0)
    const factory = JSON.parse(deployed.stdout)
    expect(factory).toMatchObject({ network: "base", depositFactory: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), variable: "PAYGATE_DEPOSIT_FACTORY_BASE" })
    /** Deploys a contract with `command`; it answers its address as `field`, the variable to set, and what for. */
    const deployContract = async (command: string, field: string, variable: string, purpose: string) => {
      const result = await admin(live, command, "deploy", "--network", "base")
      expect(result.code, result.stderr).toBe(0)
      const answer = JSON.parse(result.stdout)
      expect(answer).toEqual({
        network: "base",
        [field]: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        variable,
        then: `set ${variable}=${answer[field]} in every process's environment to take ${purpose} on base`
      })
      return answer
    }
    const vault = await deployContract("subscription-vault", "subscriptionVault", "PAYGATE_SUBSCRIPTION_VAULT_BASE", "subscriptions")
    const escrow = await deployContract("payment-escrow", "paymentEscrow", "PAYGATE_PAYMENT_ESCROW_BASE", "held payments")
    const ready = {
      ...live,
      PAYGATE_DEPOSIT_FACTORY_BASE: factory.depositFactory,
      PAYGATE_SUBSCRIPTION_VAULT_BASE: vault.subscriptionVault,
      PAYGATE_PAYMENT_ESCROW_BASE: escrow.paymentEscrow
    }
    const { partnerId } = JSON.parse((await admin(ready, "partner", "create", "--name", "Go-live company")).stdout)
    const created = await admin(ready, "merchant", "create", "--partner", partnerId, "--name", "Go-live shop")
    expect(created.code, created.stderr).toBe(0)
    const merchant = JSON.parse(created.stdout)
    expect(merchant).toMatchObject({ merchantId: expect.stringMatching(/^mer_/), partnerId, mode: "live", name: "Go-live shop" })

    const passing = await admin(ready, "preflight")
    expect(passing.stderr).toBe("")
    expect(lines(passing.stdout)).toEqual([
      "✓ database: an external PostgreSQL (DATABASE_URL)",
      "✓ public URL: https://pay.example.com",
      "✓ OPTION_ID_SECRET is set (the same in every process)",
      "✓ WEBHOOK_SECRET_KEY is set (the same in every process)",
      `✓ base: the RPC serves eip155:8453; USDC's EIP-712 domain "Test USD Coin" version "2"`,
      expect.stringMatching(new RegExp(`^✓ base: the executor ${anvilAccount(0).address} holds [\\d.]+ for gas$`)),
      `✓ base: the deposit factory ${factory.depositFactory} is the executor's and sweeps to the collection address`,
      `✓ base: the subscription vault ${vault.subscriptionVault} charges through Permit2`,
      `✓ base: the payment escrow ${escrow.paymentEscrow} holds payments`,
      `✓ live partner: ${partnerId}`,
      `✓ live merchant: ${merchant.merchantId}`
    ])
    expect(passing.stdout).toContain("Ready to go live.")
    expect(passing.code).toBe(0)
  }, 600_000)

  it("refuses what would break the chain checks, one line each: a plain-HTTP public URL, a factory another key owns, a vault or an escrow without code, a malformed secret", async () => {
    const noVault = anvilAccount(5).address
    const env = {
      PAYGATE_NETWORKS: "base",
      PAYGATE_RPC_BASE: chain.rpcUrl,
      PAYGATE_COLLECTION_ADDRESS: anvilAccount(9).address,
      PAYGATE_EXECUTOR_KEY: anvilAccount(1).privateKey,
      // The preset chain's own factory belongs to anvil #0, not to this executor.
      PAYGATE_DEPOSIT_FACTORY_BASE: chain.depositFactory,
      PAYGATE_SUBSCRIPTION_VAULT_BASE: noVault,
      PAYGATE_PAYMENT_ESCROW_BASE: noVault,
      DATABASE_URL: databaseUrl,
      PUBLIC_URL: "http://localhost:3000",
      OPTION_ID_SECRET: "short",
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64")
    }
    const result = await admin(env, "preflight")
    expect(result.code).toBe(1)
    const checks = lines(result.stdout)
    expect(checks).toContain("✗ public URL: http://localhost:3000 is not an HTTPS URL — fix: set PUBLIC_URL=https://pay.example.com: the HTTPS address buyers and partners reach (TLS ends at your proxy)")
    expect(checks.find((line) => line.includes("OPTION_ID_SECRET"))).toMatch(/^✗ OPTION_ID_SECRET: OPTION_ID_SECRET must be base64 of at least 32 bytes\./)
    expect(checks.find((line) => line.includes("PAYGATE_DEPOSIT_FACTORY_BASE"))).toMatch(
      new RegExp(`^✗ base: PAYGATE_DEPOSIT_FACTORY_BASE: the factory is owned by ${anvilAccount(0).address}, not by the executor ${anvilAccount(1).address}\\. — fix: deploy one: npm run -s admin -- deposit-factory deploy --network base`)
    )
    expect(checks.find((line) => line.includes("PAYGATE_SUBSCRIPTION_VAULT_BASE"))).toBe(
      `✗ base: PAYGATE_SUBSCRIPTION_VAULT_BASE: no contract at ${noVault}. — fix: deploy one: npm run -s admin -- subscription-vault deploy --network base, ` +
        "then set PAYGATE_SUBSCRIPTION_VAULT_BASE to its address"
    )
    expect(checks.find((line) => line.includes("PAYGATE_PAYMENT_ESCROW_BASE"))).toBe(
      `✗ base: PAYGATE_PAYMENT_ESCROW_BASE: no contract at ${noVault}. — fix: deploy one: npm run -s admin -- payment-escrow deploy --network base, ` +
        "then set PAYGATE_PAYMENT_ESCROW_BASE to its address"
    )
    expect(result.stdout).not.toContain("short")
  }, 300_000)
})
