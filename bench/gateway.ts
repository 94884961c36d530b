/**
 * The gateway loads: payment options for 3 accounts, and status reads (the service's or the
 * floor's) while confirms are posted to the service flat out. Both use the chain the service
 * starts when `PAYGATE_CHAINS` is unset (`LocalChain`: anvil, TUSDC pegged to USD, 1,000,000
 * minted to each default anvil account), and a wallet app minted with `npm run admin -- app create`.
 *
 * Confirms are prepared before they are needed (a payment, its options for one account, the
 * EIP-3009 authorization signed by that account), so the load generator only posts them; each
 * accepted confirm also makes the service's executor submit the transfer to anvil.
 */
import { anvilAccount } from "../packages/adapters/src/chain/AnvilAccounts.ts"
import { signOption } from "../packages/adapters/src/chain/LocalWallet.ts"
import { type HttpLoad, type LoadSettings, median, runHttp, type Sample } from "./lib/load.ts"
import { admin, log, machineCpuSeconds, mainThreadCpuSecondsOf } from "./lib/processes.ts"
import type { BenchContext } from "./lib/context.ts"

/** The local chain's CAIP-2 id (anvil's default chain id). */
const chainId = "eip155:31337"
/** Buyers: anvil accounts 1 to 8 (0 is the executor, 9 the collection address). */
const buyers = [1, 2, 3, 4, 5, 6, 7, 8].map((index) => anvilAccount(index))
const accountId = (index: number) => `${chainId}:${buyers[index % buyers.length]!.address}`

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? "")
  return Number.isInteger(value) && value > 0 ? value : fallback
}
/**
 * Confirms prepared per bench run (`BENCH_CONFIRMS`, for both confirm loads): about what the full
 * bench's twelve runs take at this machine's rates; the driver stops early when they run out, and a
 * round that ran out leaves the goal without a verdict (raise it then).
 */
const confirmCount = int("BENCH_CONFIRMS", 16_000)
/** Confirms in flight at once while "flat out". */
const confirmConcurrency = 16

interface Fixture {
  readonly walletKey: string
}

/** A confirm ready to post: its payment, its body, and the typed data the buyer signed (JSON). */
export interface PreparedConfirm {
  readonly paymentId: string
  readonly body: string
  readonly typedData: string
}

const memo = <A>(make: (context: BenchContext) => Promise<A>) => {
  const made = new WeakMap<BenchContext, Promise<A>>()
  return (context: BenchContext) => {
    let value = made.get(context)
    if (value === undefined) {
      value = make(context)
      made.set(context, value)
    }
    return value
  }
}

const fixtureOf = memo(async (context): Promise<Fixture> => {
  const app = await admin(context.databaseUrl, "app", "create", "--name", "Bench wallet", "--sandbox")
  return { walletKey: app.walletApiKey! }
})

const post = async (url: string, headers: Record<string, string>, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as any }
}

/** The headers of a wallet's gateway requests. */
export const walletHeaders = (walletKey: string) => ({ "api-key": walletKey, "sdk-name": "Bench wallet" })

/** Where confirms are prepared: the service, a merchant of the partner whose key is given, and a wallet key. */
export interface ConfirmTarget {
  readonly serviceUrl: string
  readonly apiKey: string
  readonly merchantId: string
  readonly walletKey: string
  readonly runId: string
}

/**
 * `count` signed confirms prepared through the service: each a new payment, its options for one
 * buyer (anvil accounts 1 to 8 in turn), and the EIP-3009 authorization that buyer signed.
 */
export const prepareSignedConfirms = async (target: ConfirmTarget, count: number): Promise<Array<PreparedConfirm>> => {
  const started = Date.now()
  const prepared: Array<PreparedConfirm> = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const n = next++
      const created = await post(
        `${target.serviceUrl}/v1/merchant/payment`,
        { "api-key": target.apiKey, "merchant-id": target.merchantId },
        { amount: { unit: "iso4217/USD", value: "1050" }, referenceId: `${target.runId}-confirm-${n}` }
      )
      if (created.status !== 200) throw new Error(`creating a payment to confirm answered ${created.status}: ${JSON.stringify(created.body)}`)
      const paymentId = created.body.paymentId as string
      const options = await post(`${target.serviceUrl}/v1/gateway/payment/${paymentId}/options`, walletHeaders(target.walletKey), {
        accounts: [accountId(n)],
        refresh: null
      })
      const option = options.body.options?.find((o: any) => o.actions?.[0]?.data?.method === "eth_signTypedData_v4")
      if (options.status !== 200 || option === undefined) {
        throw new Error(`options answered ${options.status} with no EIP-3009 option: ${JSON.stringify(options.body)}`)
      }
      const signature = await signOption(option, buyers[n % buyers.length]!.privateKey)
      prepared.push({
        paymentId,
        body: JSON.stringify({ optionId: option.id, results: [{ type: "walletRpc", data: [signature] }], collectedData: null }),
        typedData: option.actions.at(-1).data.params[1]
      })
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  log(`prepared ${prepared.length} signed confirms in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return prepared
}

const confirmsOf = memo(async (context): Promise<Array<PreparedConfirm>> =>
  prepareSignedConfirms({
    serviceUrl: context.service.url,
    apiKey: context.apiKey,
    merchantId: context.merchantId,
    walletKey: (await fixtureOf(context)).walletKey,
    runId: context.runId
  }, confirmCount)
)

/** Prepares the confirms `status.confirms` posts (run before the rounds, outside every measurement). */
export const prepareConfirms = async (context: BenchContext): Promise<void> => {
  await confirmsOf(context)
}

/** What the confirm driver did while status ran, per round. */
export interface ConfirmRun {
  /** The status load it ran beside. */
  readonly load: string
  readonly seconds: number
  readonly accepted: number
  readonly failed: number
  /** Refusals by HTTP status and error code. */
  readonly refusals: Record<string, number>
  /** Seconds into the run when the prepared confirms ran out, if they did. */
  readonly ranOutAfter: number | undefined
  /** Seconds after the run until the executor had settled the last accepted payments (`undefined`: not within 60 s). */
  readonly settledAfter: number | undefined
  /** While the status load ran: the cores' worth of CPU the service's main thread (its event loop) used. */
  readonly mainThreadBusy: number
  /** While the status load ran: the share of the machine's CPU time that was busy (every process, every core). */
  readonly machineBusy: number
}

/** Every confirm run of this bench process (rounds and warm-up), in order. */
export const confirmRuns: Array<ConfirmRun> = []

/**
 * Waits until the executor has moved the last accepted payments on from `processing`, so that its
 * work does not spill into the next load's measurement; answers the seconds it took.
 */
const settled = async (context: BenchContext, paymentIds: ReadonlyArray<string>) => {
  const started = Date.now()
  const headers = { "api-key": context.apiKey, "merchant-id": context.merchantId }
  for (const id of paymentIds) {
    for (;;) {
      const response = await fetch(`${context.service.url}/v1/merchant/payment/${id}/status`, { headers })
      if (((await response.json()) as { status?: string }).status !== "processing") break
      if (Date.now() - started > 60_000) return undefined
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  return (Date.now() - started) / 1000
}

/** Posts prepared confirms, `confirmConcurrency` at a time, until `stop` is set or none are left. */
const driveConfirms = async (context: BenchContext, stop: { done: boolean }): Promise<Omit<ConfirmRun, "load" | "settledAfter" | "mainThreadBusy" | "machineBusy"> & { readonly last: ReadonlyArray<string> }> => {
  const fixture = await fixtureOf(context)
  const pool = await confirmsOf(context)
  const started = Date.now()
  let accepted = 0
  let failed = 0
  const last: Array<string> = []
  const refusals: Record<string, number> = {}
  let ranOutAfter: number | undefined
  const loop = async () => {
    while (!stop.done) {
      const confirm = pool.pop()
      if (confirm === undefined) {
        ranOutAfter ??= (Date.now() - started) / 1000
        return
      }
      const answer = await post(`${context.service.url}/v1/gateway/payment/${confirm.paymentId}/confirm`, walletHeaders(fixture.walletKey), confirm.body)
      if (answer.status === 200) {
        accepted++
        last.push(confirm.paymentId)
        if (last.length > confirmConcurrency) last.shift()
      } else {
        failed++
        const why = `${answer.status} ${answer.body?.code ?? ""}`.trim()
        refusals[why] = (refusals[why] ?? 0) + 1
        if (failed === 1) log(`  a confirm was refused: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
    }
  }
  await Promise.all(Array.from({ length: confirmConcurrency }, loop))
  return { seconds: (Date.now() - started) / 1000, accepted, failed, refusals, ranOutAfter, last }
}

/** Status reads (`reads`: the service's or the floor's, load `load`) while confirms are posted to the service flat out. */
export const underConfirms = (load: string, reads: (context: BenchContext) => HttpLoad) =>
async (context: BenchContext, settings: LoadSettings, seconds: number): Promise<Sample> => {
  const stop = { done: false }
  const pid = context.service.child.pid!
  const before = { main: mainThreadCpuSecondsOf(pid), machine: machineCpuSeconds(), at: performance.now() }
  const confirms = driveConfirms(context, stop)
  const sample = await runHttp(reads(context), settings, seconds)
  const mainThreadBusy = (mainThreadCpuSecondsOf(pid) - before.main) / ((performance.now() - before.at) / 1000)
  const machine = machineCpuSeconds()
  const machineBusy = (machine.busy - before.machine.busy) / (machine.total - before.machine.total)
  stop.done = true
  const { last, ...driven } = await confirms
  const run: ConfirmRun = { load, ...driven, settledAfter: await settled(context, last), mainThreadBusy, machineBusy }
  confirmRuns.push(run)
  log(`  confirms alongside: ${run.accepted} accepted, ${run.failed} refused ${JSON.stringify(run.refusals)} in ${run.seconds.toFixed(1)} s` +
    (run.ranOutAfter === undefined ? "" : `; the prepared confirms ran out after ${run.ranOutAfter.toFixed(1)} s`) +
    `; the executor settled them ${run.settledAfter === undefined ? "not within 60 s" : `${run.settledAfter.toFixed(1)} s later`}`)
  return sample
}

/** `POST /v1/gateway/payment/{id}/options` for 3 accounts, rotating over the seeded payments. */
export const options = async (context: BenchContext, settings: LoadSettings, seconds: number): Promise<Sample> => {
  const fixture = await fixtureOf(context)
  let n = 0
  const body = JSON.stringify({ accounts: [accountId(0), accountId(1), accountId(2)], refresh: null })
  return runHttp({
    url: context.service.url,
    method: "POST",
    headers: { ...walletHeaders(fixture.walletKey), "content-type": "application/json" },
    next: () => ({ path: `/v1/gateway/payment/${context.paymentIds[n++ % context.paymentIds.length]!}/options`, body })
  }, settings, seconds)
}

/**
 * Confirms accepted per second beside the status load `load`: the median of its rounds. Its first run is
 * left out: every load's warm-up runs before any round.
 */
export const confirmsAcceptedPerSecond = (load: string): number | undefined => {
  const rounds = confirmRuns.filter((run) => run.load === load).slice(1)
  return rounds.length === 0 ? undefined : median(rounds.map((run) => (run.seconds > 0 ? run.accepted / run.seconds : 0)))
}

/** Which of `loads` ran out of prepared confirms in one of their rounds (their first run, the warm-up, left out). */
export const confirmsRanOutIn = (loads: ReadonlyArray<string>): ReadonlyArray<string> =>
  loads.filter((load) => confirmRuns.filter((run) => run.load === load).slice(1).some((run) => run.ranOutAfter !== undefined))

/** A line for the report's checks: what the confirm driver achieved in each run, warm-up first. */
export const confirmNote = (): string | undefined => {
  if (confirmRuns.length === 0) return undefined
  const perSecond = confirmRuns.map((run) => (run.seconds > 0 ? run.accepted / run.seconds : 0).toFixed(0)).join(", ")
  const refusals: Record<string, number> = {}
  for (const run of confirmRuns) for (const [why, count] of Object.entries(run.refusals)) refusals[why] = (refusals[why] ?? 0) + count
  const ranOut = confirmRuns.filter((run) => run.ranOutAfter !== undefined).length
  const settle = confirmRuns.map((run) => run.settledAfter)
  const range = (values: ReadonlyArray<number>, format: (value: number) => string) =>
    `${format(Math.min(...values))}–${format(Math.max(...values))}`
  return `Confirms alongside \`status.confirms\` and \`status.confirms.floor\` (${confirmConcurrency} in flight, prepared beforehand): ` +
    `accepted per second in each run (warm-ups first, in the order run): ${perSecond}; refused: ${Object.keys(refusals).length === 0 ? "none" : JSON.stringify(refusals)}` +
    `${ranOut === 0 ? "" : `; the prepared confirms ran out in ${ranOut} run(s) (raise BENCH_CONFIRMS)`}; the executor had settled ` +
    `the last accepted payments ${settle.includes(undefined) ? "not within 60 s after some runs" : `at most ${Math.max(...settle.map(Number)).toFixed(1)} s after each run`}. ` +
    `While the status loads ran, the service's main thread (its event loop) was busy ` +
    `${range(confirmRuns.map((run) => run.mainThreadBusy), (v) => v.toFixed(2))} of a core, and the machine's CPU ` +
    `${range(confirmRuns.map((run) => run.machineBusy), (v) => `${(100 * v).toFixed(0)}`)} % busy (every process, every core).`
}
