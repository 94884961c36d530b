/**
 * The soak: the cluster run (`ClusterRun.ts`: 2 API + 2 worker processes, PostgreSQL, anvil) for
 * `SOAK_MINUTES` minutes (default 30) of orders — creates, confirms, refunds, settlements, webhooks —
 * offered at `SOAK_ORDERS_PER_MINUTE` (default 240, below what the executor keeps up with), with
 * api-1 and worker-1 killed every `SOAK_KILL_EVERY_MS` (default 4 minutes) and one of three RPC
 * providers (a quorum of 2) cut 10 s in every 30 s; unpaid orders expire after 2 minutes. Then the cluster's checks (nothing lost or done
 * twice, the ledger equal to the chain), a line per minute, and flatness: api-2's and worker-2's
 * resident memory (never killed) and the p99 of the last five minutes against the first five's. The
 * method and the latest figures are in docs/operations.md.
 */
import { describe, expect, it } from "vitest"
import { checkCluster } from "../support/ClusterChecks.ts"
import { type ClusterResources, releaseCluster, runCluster, type Sample } from "../support/ClusterRun.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"

const minutes = Number(process.env.SOAK_MINUTES ?? 30)
const killEveryMs = Number(process.env.SOAK_KILL_EVERY_MS ?? 240_000)
const ordersPerMinute = Number(process.env.SOAK_ORDERS_PER_MINUTE ?? 240)
// How far the last five minutes may drift from the first five before the soak calls it a trend.
const memoryGrowth = 1.25
const latencyGrowth = 1.5

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!
}

const line = (s: Sample) =>
  `minute ${String(s.minute).padStart(2)}: ${String(s.requests).padStart(5)} requests, p99 ${String(s.p99).padStart(5)} ms, ` +
  Object.entries(s.rssMb).map(([name, mb]) => `${name} ${mb} MB`).join(", ")

describe("Soak: the cluster under kills and a flapping RPC provider", () => {
  const chainWorld = localChainForFile()

  it(`${minutes} minutes: nothing lost or doubled, memory and p99 flat`, async () => {
    const resources: ClusterResources = { processes: [], proxies: [] }
    try {
      const run = await runCluster(chainWorld(), resources, { minutes, lanes: 6, ordersPerMinute, killEveryMs, flapMs: 10_000, paymentLifetimeSeconds: 120 })
      const samples = run.samples
      console.log(`soak: ${samples.length} minutes sampled\n${samples.map(line).join("\n")}`)
      console.log(`soak: ${run.late.length} payments not succeeded within 200 s of their confirm${run.late.length === 0 ? "" : `, first: ${run.late[0]}`}`)
      const [first, last] = [samples.slice(0, 5), samples.slice(-5)]
      const trend = (pick: (s: Sample) => number | undefined) => {
        const of = (window: ReadonlyArray<Sample>) => median(window.map(pick).filter((x): x is number => x !== undefined))
        return { first: of(first), last: of(last) }
      }
      const figures = {
        "api-2 MB": trend((s) => s.rssMb["api-2"]),
        "worker-2 MB": trend((s) => s.rssMb["worker-2"]),
        "p99 ms": trend((s) => s.p99)
      }
      console.log(`soak: first five minutes → last five (medians): ${JSON.stringify(figures)}`)
      // What the run left first (it prints its summary), then whether it was late or drifted.
      await checkCluster(run)
      expect(run.late).toEqual([])
      expect(samples.length).toBeGreaterThanOrEqual(10)
      expect(figures["api-2 MB"].last).toBeLessThanOrEqual(figures["api-2 MB"].first * memoryGrowth)
      expect(figures["worker-2 MB"].last).toBeLessThanOrEqual(figures["worker-2 MB"].first * memoryGrowth)
      expect(figures["p99 ms"].last).toBeLessThanOrEqual(figures["p99 ms"].first * latencyGrowth)
    } finally {
      await releaseCluster(resources)
    }
  })
})
