/**
 * The worker's jobs for in-process tests: the production layers (use cases, SQL ports, webhook
 * adapters, the secret cipher from `WEBHOOK_SECRET_KEY`) with fast settings, run against a test
 * server's database and stopped (gracefully) at will.
 */
import { CachedHmac, SqlPersistence, WebhookAdapters } from "@paygate/adapters"
import { IdGenerator, Payments, WebhookDispatch, WebhookSettings, type WebhookSettingsShape } from "@paygate/domain"
import { Effect, Fiber, Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import { defaultWorkerSettings, WorkerJobs, WorkerSettings, type WorkerSettingsShape } from "../../src/Worker.ts"

/** Fast webhook settings: retries after 150 ms, 150 ms, 150 ms (no jitter), 1 s timeout, private addresses allowed. */
export const fastWebhooks: WebhookSettingsShape = {
  allowPrivateAddresses: true,
  retrySchedule: { delays: [150, 150, 150], jitter: 0 },
  requestTimeoutMs: 1_000
}

/** Fast worker settings: polls every 25 ms. */
export const fastWorker: WorkerSettingsShape = {
  ...defaultWorkerSettings,
  pollIntervalMs: 25,
  expiryIntervalMs: 250,
  shutdownGraceMs: 5_000
}

/** The worker's jobs over the `SqlClient` in context, with these settings. */
export const testWorkerLayer = (
  webhooks: Partial<WebhookSettingsShape> = {},
  worker: Partial<WorkerSettingsShape> = {}
): Layer.Layer<never, unknown, SqlClient.SqlClient> =>
  WorkerJobs.pipe(
    Layer.provide(Layer.mergeAll(WebhookDispatch.layer, Payments.layer)),
    Layer.provide(WebhookAdapters.layer),
    Layer.provide(WebhookAdapters.SecretCipher.layerFromConfig),
    Layer.provide(SqlPersistence.layer),
    Layer.provide(Layer.mergeAll(IdGenerator.layer, CachedHmac.layer)),
    Layer.provide(SecureRandom.layerWebCrypto),
    Layer.provide(Layer.succeed(WebhookSettings, { ...fastWebhooks, ...webhooks })),
    Layer.provide(Layer.succeed(WorkerSettings, { ...fastWorker, ...worker }))
  )

/** A running worker: `stop` interrupts it (in-flight attempts finish first). */
export interface RunningWorker {
  readonly stop: () => Promise<void>
}

/** Starts the worker with `run` (a test server's `run`). */
export const startWorker = async (
  run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>,
  webhooks: Partial<WebhookSettingsShape> = {},
  worker: Partial<WorkerSettingsShape> = {}
): Promise<RunningWorker> => {
  const fiber = await run(Effect.forkDetach(Layer.launch(testWorkerLayer(webhooks, worker))))
  return { stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined) }
}
