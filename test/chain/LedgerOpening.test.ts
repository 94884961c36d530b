/**
 * Opening the ledger (`npm run admin -- ledger open`) on anvil and the embedded database: the
 * collection address held tokens before the ledger existed (the watcher's cursor starts past them),
 * so the reconciliation shows a lasting difference; opening posts it once, against the operator's
 * `opening` account in the chain's mode, and the ledger then equals the chain; a second run posts
 * nothing, and a chain the worker has not read yet is refused. `ledger audit` then finds the ledger
 * in agreement with the receipts.
 */
import { Chain, GatewayServices, LedgerOpener, SqlPersistence } from "@paygate/adapters"
import { parseAdminCommand, runAdmin } from "@paygate/cli"
import { ConfigProvider, Effect, Exit, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { reconcileChains } from "../support/LedgerAudit.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { pglite, useTestServer } from "../support/TestServer.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { anvilRpc, watcherJob } from "../support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain

const world = localChainForFile()

describe("Opening the ledger on a chain that held funds before it (anvil, PGlite)", () => {
  const server = useTestServer(pglite, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(world().settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let chains: Chain.ChainConfig.Chains
  let watcher: Fiber.Fiber<unknown, unknown> | undefined

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(world().settings()))
  })
  afterAll(async () => {
    if (watcher !== undefined) await Effect.runPromise(Fiber.interrupt(watcher))
  })

  const chainId = () => world().chain.chainId
  const collection = () => world().chain.collectionAddress.toLowerCase()
  const query = <A extends object>(statement: string) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(Effect.orDie))
  const admin = (...argv: Array<string>) => {
    const command = parseAdminCommand(argv)
    if (command._tag === "Invalid") throw new Error(command.message)
    // The operator's environment names the chains, as PAYGATE_CHAINS does.
    const environment = ConfigProvider.fromUnknown({ PAYGATE_CHAINS: JSON.stringify(world().settings()) })
    return server.run(Effect.exit(runAdmin(command).pipe(Effect.provide(LedgerOpener.layer), Effect.provide(ConfigProvider.layer(environment)))))
  }
  const opened = async (...argv: Array<string>) => {
    const exit = await admin("ledger", "open", ...argv)
    if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
    return exit.value as ReadonlyArray<Record<string, string>>
  }
  const reconcile = () => server.run(reconcileChains(chains).pipe(Effect.provide(SqlPersistence.layer)))
  const openings = () => query<{ readonly n: string }>(`SELECT count(*)::text AS n FROM ledger_transactions WHERE source = 'opening'`)

  it("refuses a chain the worker has not read, and one that is not configured", async () => {
    const exit = await admin("ledger", "open")
    expect(Exit.isFailure(exit) && String(exit.cause)).toContain(`The worker has not read ${chainId()} yet`)
    const unknown = await admin("ledger", "open", "--chain", "eip155:999999")
    expect(Exit.isFailure(unknown) && String(unknown.cause)).toContain("eip155:999999 is not a configured chain")
    expect(await openings()).toEqual([{ n: "0" }])
  })

  it("posts what the collection address held before the ledger, once; the ledger then equals the chain", async () => {
    // Funds sent before the ledger existed: the watcher starts past the block that holds them.
    await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(7).privateKey, token: world().chain.contracts.usdc, to: world().chain.collectionAddress, value: 4_321n })
    const head = Number(await world().client.getBlockNumber())
    await query(`INSERT INTO chain_cursors (chain_id, next_block, updated_at) VALUES ('${chainId()}', ${head + 1}, 0)`)
    watcher = await server.run(Effect.forkDetach(Layer.launch(watcherJob(chains))))
    // A transfer after it is the ledger's like any other.
    await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(7).privateKey, token: world().chain.contracts.usdc, to: world().chain.collectionAddress, value: 17n })
    await anvilRpc(world(), "anvil_mine", ["0x3"])
    await eventually(() => query(`SELECT id FROM chain_receipts WHERE value = 17`), (rows) => rows.length === 1, 30_000)
    const held = await world().balanceOf(world().chain.collectionAddress)

    const before = (await reconcile()).filter((l) => l.chain !== l.ledger)
    expect(before.map((l) => [l.kind, l.address, l.chain - l.ledger])).toEqual([["collection", collection(), held - 17n]])

    const lines = await opened("--chain", chainId())
    const collectionLine = lines.find((l) => l.kind === "collection" && l.asset === world().chain.usdcAssetId)!
    expect(collectionLine).toMatchObject({ address: collection(), outcome: "opened", opened: String(held - 17n), chain: String(held), ledger: "17" })
    expect(lines.filter((l) => l !== collectionLine).map((l) => l.outcome)).toEqual(lines.slice(1).map(() => "agrees"))

    expect((await reconcile()).filter((l) => l.chain !== l.ledger)).toEqual([])
    // One balanced transaction in the chain's mode, against the operator's opening account.
    const entries = await query<{ readonly mode: string; readonly kind: string; readonly amount: string }>(
      `SELECT t.mode, a.kind, e.amount::text AS amount FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
        JOIN ledger_accounts a ON a.id = e.account_id WHERE t.source = 'opening' ORDER BY a.kind`
    )
    expect(entries).toEqual([
      { mode: "sandbox", kind: "collection", amount: String(held - 17n) },
      { mode: "sandbox", kind: "opening", amount: String(17n - held) }
    ])

    // A second run posts nothing.
    const again = await opened()
    expect(again.map((l) => l.outcome)).toEqual(again.map(() => "agrees"))
    expect(await openings()).toEqual([{ n: "1" }])

    // The audit against the records agrees too: the receipt is posted for its value.
    const audit = await admin("ledger", "audit")
    if (Exit.isFailure(audit)) throw new Error(String(audit.cause))
    expect(audit.value).toMatchObject({ checked: { receipts: 1, payouts: 0, receiptRefunds: 0 }, findings: [] })
  }, 120_000)
})
