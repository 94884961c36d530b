/**
 * A PostgreSQL world for multi-process worker tests: a fresh database on the `TEST_DATABASE_URL`
 * server (dropped at the end), the production SQL adapters over it, bulk seeding of payments with
 * their outbox events, webhook endpoints with known secrets, and worker child processes
 * (what `npm run worker` runs) with their own environment.
 */
import { CredentialAdmin, Database, Migrations, SqlPersistence, WebhookAdapters } from "@paygate/adapters"
import {
  generateSecret,
  IdGenerator,
  LedgerBalances,
  Merchant,
  MerchantRepository,
  OutboxEvent,
  Payment,
  PaymentRepository,
  WebhookEndpoint,
  WebhookEndpointRepository
} from "@paygate/domain"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { startCommand } from "../../scripts/StartCommand.ts"
import { checkLedgerRecords } from "./LedgerRecordsAudit.ts"

const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

const admin = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      yield* (yield* SqlClient.SqlClient).unsafe(statement)
    }).pipe(Effect.provide(Database.layerUrl(url, { maxConnections: 1 })))
  )

const servicesOver = (url: string, key: Uint8Array) =>
  Layer.mergeAll(SqlPersistence.layer, CredentialAdmin.layer, WebhookAdapters.layer).pipe(
    Layer.provideMerge(WebhookAdapters.SecretCipher.layerKey(key)),
    Layer.provideMerge(IdGenerator.layer),
    Layer.provideMerge(SecureRandom.layerWebCrypto),
    Layer.provideMerge(Migrations.layer),
    Layer.provideMerge(Database.layerUrl(url, { maxConnections: 4 }))
  )

type Services = Layer.Success<ReturnType<typeof servicesOver>>

/** A registered endpoint and its plaintext secret. */
export interface SeededEndpoint {
  readonly id: string
  readonly path: string
  readonly secret: string
}

export interface PostgresWorld {
  readonly url: string
  /** `WEBHOOK_SECRET_KEY` of the world (base64). */
  readonly keyText: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, Services>) => Promise<A>
  /** A partner with a sandbox merchant. */
  readonly merchant: () => Promise<Merchant>
  /** Registers an endpoint of the merchant's partner at `url` (all event types). */
  readonly endpoint: (merchant: Merchant, url: string, path: string) => Promise<SeededEndpoint>
  /** Stores `count` new payments of the merchant, each with its `payment.created` event, in bulk; answers the event ids. */
  readonly seed: (merchant: Merchant, count: number) => Promise<ReadonlyArray<string>>
  /** Starts a worker process on this database with extra environment. */
  readonly spawnWorker: (env?: Record<string, string>) => WorkerProcess
  readonly close: () => Promise<void>
}

export interface WorkerProcess {
  readonly child: ChildProcess
  readonly output: () => string
  /** Resolves with the exit code (or signal) once the process is gone. */
  readonly exited: Promise<number | string>
}

export const makePostgresWorld = async (serverUrl: string): Promise<PostgresWorld> => {
  const name = `paygate_w_${randomBytes(6).toString("hex")}`
  // Empty, not a copy of the run's migrated template: the cluster tests' processes race to migrate it.
  await admin(serverUrl, `CREATE DATABASE ${name}`)
  const target = new URL(serverUrl)
  target.pathname = `/${name}`
  const url = target.toString()
  const key = new Uint8Array(randomBytes(32))
  const runtime = ManagedRuntime.make(servicesOver(url, key))
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)
  const children: Array<WorkerProcess> = []

  const merchant = () =>
    run(Effect.gen(function*() {
      const partner = yield* (yield* CredentialAdmin).createPartner({ name: `scale-${randomBytes(3).toString("hex")}` })
      const m = new Merchant({
        id: yield* (yield* IdGenerator).make("merchant"),
        partnerId: partner.id,
        mode: "sandbox",
        name: "Scale shop",
        email: null,
        iconUrl: null,
        deleted: false,
        createdAt: Date.now(),
        updatedAt: Date.now()
      })
      yield* (yield* MerchantRepository).insert(m).pipe(Effect.orDie)
      return m
    }))

  const endpoint = (m: Merchant, endpointUrl: string, path: string) =>
    run(Effect.gen(function*() {
      const secret = yield* generateSecret
      const e = new WebhookEndpoint({
        id: yield* (yield* IdGenerator).make("webhookEndpoint"),
        partnerId: m.partnerId,
        mode: m.mode,
        url: endpointUrl,
        events: [],
        merchantId: null,
        secret,
        status: "active",
        apiVersion: "2026-02-18",
        createdAt: Date.now()
      })
      yield* (yield* WebhookEndpointRepository).insert(e)
      return { id: e.id, path, secret: Redacted.value(secret) }
    }))

  const seed = (m: Merchant, count: number) =>
    run(Effect.gen(function*() {
      const ids = yield* IdGenerator
      const eventIds: Array<string> = []
      for (let start = 0; start < count; start += 500) {
        const payments: Array<Payment> = []
        const events: Array<OutboxEvent> = []
        for (let i = start; i < Math.min(count, start + 500); i++) {
          const now = Date.now()
          const payment = new Payment({
            id: yield* ids.make("payment"),
            partnerId: m.partnerId,
            merchantId: m.id,
            mode: m.mode,
            referenceId: `order-${i}`,
            currency: "USD",
            value: 1000n + BigInt(i),
            status: "requires_action",
            stateVersion: 1,
            checkout: null,
            expiresAt: Math.floor(now / 1000) + 900,
            commitment: null,
            cancelledReason: null,
            cancelledAt: null,
            createdAt: now,
            updatedAt: now
          })
          const event = new OutboxEvent({
            id: yield* ids.make("event"),
            type: "payment.created",
            partnerId: payment.partnerId,
            paymentId: payment.id,
            payment,
            stage: {},
            createdAt: Math.floor(now / 1000)
          })
          payments.push(payment)
          events.push(event)
          eventIds.push(event.id)
        }
        // Through the repository, as the service writes them (one statement per payment and its event).
        const repo = yield* PaymentRepository
        yield* Effect.forEach(payments, (payment, i) => repo.insert(payment, [events[i]!]), { concurrency: 8, discard: true })
      }
      return eventIds
    }))

  const spawnWorker = (env: Record<string, string> = {}): WorkerProcess => {
    const command = startCommand(repoRoot, "worker")
    const child = spawn(process.execPath, [...command.flags, command.entry], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...command.env,
        DATABASE_URL: url,
        WEBHOOK_SECRET_KEY: Buffer.from(key).toString("base64"),
        WEBHOOK_ALLOW_PRIVATE: "true",
        ...env
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout?.on("data", (chunk) => (output = (output + chunk).slice(-20_000)))
    child.stderr?.on("data", (chunk) => (output = (output + chunk).slice(-20_000)))
    const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)))
    const worker = { child, output: () => output, exited }
    children.push(worker)
    return worker
  }

  return {
    url,
    keyText: Buffer.from(key).toString("base64"),
    run,
    merchant,
    endpoint,
    seed,
    spawnWorker,
    close: async () => {
      for (const worker of children) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL")
      await Promise.all(children.map((w) => w.exited))
      try {
        await checkLedgerRecords(() => run(LedgerBalances.use((ledger) => ledger.audit)), `a PostgreSQL world (${name})`)
      } finally {
        await runtime.dispose()
        await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }
    }
  }
}
