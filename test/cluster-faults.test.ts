/**
 * Several API processes and several workers under faults, with real processes: 2 API processes +
 * 2 worker processes + PostgreSQL (a fresh database on the `TEST_DATABASE_URL` server) + one anvil
 * with the EIP-3009 test token, `CLUSTER_ORDERS` orders (default 320) in 16 lanes, an API and a
 * worker killed with SIGKILL a third into them (`ClusterRun.ts`); then nothing lost, nothing done
 * twice, the ledger equal to the chain (`ClusterChecks.ts`). `npm run soak` runs the same for
 * half an hour.
 */
import { afterAll, describe, it } from "vitest"
import { checkCluster } from "./support/ClusterChecks.ts"
import { type ClusterResources, releaseCluster, runCluster } from "./support/ClusterRun.ts"
import { localChainForFile } from "./support/LocalChainWorld.ts"

const serverUrl = process.env.TEST_DATABASE_URL

// Never skipped for want of anvil: it comes with the npm install, and a missing binary fails the
// chain's start (the PostgreSQL server is the global set-up's; PostgresInCi fails a run without it).
describe.runIf(serverUrl !== undefined && serverUrl !== "")(
  "A cluster of 2 API and 2 worker processes on PostgreSQL and anvil, under kill -9",
  () => {
    const chainWorld = localChainForFile()
    const resources: ClusterResources = { processes: [], proxies: [] }
    afterAll(() => releaseCluster(resources))

    it("creates, confirms, webhooks, settlements and refunds while an API and a worker are killed: nothing lost, nothing done twice", async () => {
      await checkCluster(await runCluster(chainWorld(), resources, { orders: Number(process.env.CLUSTER_ORDERS ?? 320), lanes: 16 }))
    }, 300_000)
  }
)
