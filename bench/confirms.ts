/**
 * Confirms per second flat out: the service's gateway confirm against the same confirm written
 * plainly (`lib/PlainConfirm.ts`, served by the raw baseline), on the same prepared confirms.
 *
 * The scenario's own database ({@link confirmsDatabase}): a copy of the seeded one on which a
 * service, started for that alone, prepares `BENCH_CONFIRM_POOL` signed confirms (`gateway.ts`)
 * and stops. The systems then start fresh on a copy of it, with the option id secret the
 * preparing service used and the API alone (`WORKER_IN_PROCESS=false`, as API processes run beside
 * `npm run worker`): both systems verify, write and queue the executor's work, and neither
 * executes it, so the ratio compares the confirm pipelines, not chain submissions. Each confirm
 * consumes its payment: both systems take from one pool, so the faster takes more, and a load that
 * ran out of them leaves its ratio without a verdict.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { type PreparedConfirm, prepareSignedConfirms, walletHeaders } from "./gateway.ts"
import { runHttp } from "./lib/load.ts"
import { admin, copyDatabase, dropDatabase, log, root, startService } from "./lib/processes.ts"
import type { ChainSettings } from "./lib/PlainConfirm.ts"
import { type Load, routeMissing, type Scenario, type ScenarioDatabase, type ScenarioTemplate } from "./scenarios.ts"

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isInteger(value) && value > 0 ? value : fallback
}

/** Confirms prepared for the scenario, for both systems (`BENCH_CONFIRM_POOL`): a warm-up and three rounds of each, flat out. */
const poolSize = int("BENCH_CONFIRM_POOL", 24_000)

/** What the preparation left for the loads. */
interface Prepared {
  readonly walletKey: string
  readonly pool: Array<PreparedConfirm>
  readonly url: string
}
let prepared: Prepared | undefined
/** Loads that ran out of prepared confirms. */
const ranOut = new Set<string>()

/** What the plain confirm checks against, from the typed data the service served and the option id's claims. */
const chainSettingsOf = (confirm: PreparedConfirm): ChainSettings => {
  const typed = JSON.parse(confirm.typedData)
  const optionId = (JSON.parse(confirm.body) as { optionId: string }).optionId
  const claims = JSON.parse(Buffer.from(optionId.split(".")[1]!, "base64url").toString("utf8")) as { asset: string }
  // The local chain is a testnet: it serves sandbox payments.
  return { assetId: claims.asset, collectionAddress: typed.message.to, domain: typed.domain, mode: "sandbox" }
}

/** The scenario's database: the seeded one with a wallet app and the prepared confirms; see the module documentation. */
const confirmsDatabase = async (template: ScenarioTemplate): Promise<ScenarioDatabase> => {
  const url = await copyDatabase(template.url, "bench_confirms_prepared")
  const env = { OPTION_ID_SECRET: randomBytes(32).toString("base64"), WORKER_IN_PROCESS: "false" }
  const service = await startService({ databaseUrl: url, logFile: join(root, "bench/.out/confirms-prepare.service.log"), env })
  let confirms: Array<PreparedConfirm>
  let walletKey: string
  try {
    walletKey = (await admin(url, "app", "create", "--name", "Bench wallet", "--sandbox")).walletApiKey!
    log(`confirm rate: preparing ${poolSize} signed confirms`)
    confirms = await prepareSignedConfirms({
      serviceUrl: service.url,
      apiKey: template.apiKey,
      merchantId: template.merchantId,
      walletKey,
      runId: `${randomBytes(3).toString("hex")}-rate`
    }, poolSize)
  } finally {
    await service.stop()
  }
  prepared = { walletKey, url, pool: confirms }
  return {
    url,
    paymentIds: template.paymentIds,
    listCursor: "",
    env: { ...env, PLAIN_CONFIRM_CHAIN: JSON.stringify(chainSettingsOf(confirms[0]!)) }
  }
}

/** Drops the prepared database (the scenario's systems ran on a copy of it). */
export const dropConfirmsDatabase = async () => {
  if (prepared !== undefined) await dropDatabase(prepared.url).catch(() => undefined)
}

/** Posts `system`'s prepared confirms flat out; a confirm is never posted twice. */
const confirmLoad = (id: string, label: string, system: "service" | "plain"): Load => ({
  id,
  label,
  system: system === "service" ? "service" : "raw",
  run: (context, settings, seconds) => {
    const { pool, walletKey } = prepared!
    const prefix = system === "service" ? "/v1/gateway" : "/plain/gateway"
    return runHttp({
      url: system === "service" ? context.service.url : context.baseline.url,
      method: "POST",
      headers: { ...walletHeaders(walletKey), "content-type": "application/json" },
      next: () => {
        const confirm = pool.pop()
        if (confirm === undefined) {
          if (!ranOut.has(id)) log(`  ${id}: the prepared confirms ran out (raise BENCH_CONFIRM_POOL)`)
          ranOut.add(id)
          // A 404 response from either system: counted as a failure, never as a confirm.
          return { path: "/prepared-confirms-ran-out", body: "{}" }
        }
        return { path: `${prefix}/payment/${confirm.paymentId}/confirm`, body: confirm.body }
      }
    }, settings, seconds)
  }
})

/** The service's confirm, flat out. */
const confirmsService = confirmLoad("confirms.service", "service: POST /v1/gateway/payment/:id/confirm (EIP-3009), flat out", "service")

/** The same confirm written plainly (node:http + pg), flat out. */
const confirmsPlain = confirmLoad("confirms.plain", "plain confirm pipeline: node:http + pg, the same checks and statements", "plain")

/** The scenario: its own database (the prepared confirms), the service's confirms and the plain pipeline's. */
export const confirmRateScenario: Scenario = {
  id: "confirm_rate",
  title: "Confirms per second flat out, the service's and the plain pipeline's",
  unavailable: (served) => routeMissing(served, "POST", "/v1/gateway/payment/{id}/confirm"),
  database: confirmsDatabase,
  loads: [confirmsService, confirmsPlain],
  // Each confirm consumes a prepared one: fewer, shorter rounds keep the preparation within a couple of minutes.
  rounds: 3,
  seconds: 3
}

/** A line for the report's checks: how many confirms each system had, and whether any load ran out. */
export const confirmsRateNote = (): string | undefined =>
  prepared === undefined ? undefined : `Confirm rate: ${poolSize} confirms prepared before the scenario (one pool for both systems); ` +
    `${prepared.pool.length} were left unused` +
    (ranOut.size === 0 ? "." : `; ${[...ranOut].join(" and ")} ran out of them (raise BENCH_CONFIRM_POOL).`)
