/**
 * Ledger = chain for the test servers of a shared local chain, as the reconciliation job would find
 * it once the worker has caught up. The servers of a test file share its anvil (and its collection
 * address), each with a database of its own, so no one ledger equals the chain; their sum does.
 *
 * A window opens when the first server of a chain starts and closes when the last one running
 * closes. As each server closes, the transfers its worker sent and the chain mined are followed to
 * their decision (`InFlightTransfers`) and the worker's chain watcher reads the chain in its database up to
 * the confirmed head (from the server's start when no watcher ran there: what its tests sent on
 * chain is then recorded, as a worker would). When the window closes, at every collection and
 * deposit address the window's ledgers keep (and the collection address in every token), what the
 * chain gained over the window must equal what the ledgers posted, summed. What a test moved on
 * chain outside every window (funding before a server starts) is not the service's; where the
 * operator opened the ledger (`ledger open`), the ledgers account for all the address holds.
 */
import { Chain } from "@paygate/adapters"
import { DepositStore, LedgerBalances } from "@paygate/domain"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "./Eventually.ts"
import { followInFlightTransfers } from "./InFlightTransfers.ts"
import { tallyAudit } from "./LedgerRecordsAudit.ts"
import { watcherJob } from "./WatcherJob.ts"

type WatchedChain = Chain.TransferLogs.WatchedChain

interface Line {
  readonly asset: string
  readonly address: string
  ledger: bigint
  /** The operator opened the ledger here (`ledger open`): it then accounts for all the address holds, not only what arrived since. */
  opened: boolean
}

interface Window {
  readonly chain: WatchedChain
  /** What the collection address held when the window opened, per asset (a deposit address holds nothing before its payment). */
  readonly startBalances: ReadonlyMap<string, bigint>
  readonly lines: Map<string, Line>
  running: number
  endBlock: number
}

const windows = new Map<string, Window>()
const keyOf = (chain: WatchedChain) => `${chain.chainId}|${chain.collectionAddress.toLowerCase()}`

type ServerServices =
  | Chain.ChainConfig.ChainsConfig
  | LedgerBalances
  | DepositStore
  | SqlClient.SqlClient
  | Effect.Services<ReturnType<typeof followInFlightTransfers>>

const latest = (chain: WatchedChain) => chain.client.getBlockNumber({ cacheTime: 0 }).then(Number)

/** A server's part in its chains' windows: {@link LedgerWindows.close} when it closes. */
export interface LedgerWindows {
  /** Catches the watcher up and adds this server's ledger to its windows; throws (naming the addresses) when a window it closes disagrees with the chain. */
  readonly close: (where: string) => Promise<void>
}

/** Counts a server starting on its chains (a window opens on a chain no server runs on). */
export const openLedgerWindows = async (context: Context.Context<ServerServices>): Promise<LedgerWindows> => {
  const settings = Context.get(context, Chain.ChainConfig.ChainsConfig)
  const chains = Chain.TransferLogs.watchedChains(settings)
  const started = new Map<string, number>()
  for (const chain of chains) {
    const block = await latest(chain)
    started.set(chain.chainId, block)
    const open = windows.get(keyOf(chain))
    if (open !== undefined) open.running += 1
    else windows.set(keyOf(chain), { chain, startBalances: await collectionHoldings(chain, block), endBlock: block, lines: new Map(), running: 1 })
  }
  const run = <A>(effect: Effect.Effect<A, unknown, ServerServices>) =>
    Effect.runPromise(Effect.provideContext(Effect.orDie(effect), context))

  // What the worker sent, the chain mined and the worker had not recorded, followed; then the watcher, in this
  // database, up to each chain's confirmed head as it is now; answers the heads. Where no watcher ran, it starts
  // after the block the server started at. A broadcast under way as the jobs stopped may be mined after the first
  // look and before the heads are read: followed again until a look after the heads decides nothing more.
  const catchUp = async () => {
    await run(followInFlightTransfers(chains))
    const heads = new Map<string, number>()
    for (let look = 1; ; look++) {
      for (const chain of chains) heads.set(chain.chainId, await Effect.runPromise(Effect.orDie(Chain.TransferLogs.safeHead(chain))))
      if (await run(followInFlightTransfers(chains)) === 0) break
      if (look === 5) throw new Error("transfers the worker recorded kept being decided after its jobs stopped")
    }
    for (const chain of chains) {
      await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO chain_cursors (chain_id, next_block, updated_at) VALUES (${chain.chainId}, ${started.get(chain.chainId)! + 1}, 0)
          ON CONFLICT (chain_id) DO NOTHING`))
    }
    const scope = Effect.runSync(Scope.make())
    try {
      await Effect.runPromise(Layer.buildWithScope(watcherJob(settings).pipe(Layer.provide(Layer.succeedContext(context))), scope))
      const cursors = () =>
        run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly chain_id: string; readonly next_block: unknown }>`SELECT chain_id, next_block FROM chain_cursors`))
      await eventually(cursors, (rows) => chains.every((c) => Number(rows.find((r) => r.chain_id === c.chainId)?.next_block ?? 0) > heads.get(c.chainId)!), 90_000)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    return heads
  }

  return {
    close: async (where) => {
      if (chains.length === 0) return
      const heads = await catchUp()
      const findings: Array<string> = []
      for (const chain of chains) {
        const window = windows.get(keyOf(chain))
        if (window === undefined) continue
        for (const line of (await run(ledgerLines(chain, started.get(chain.chainId)!))).values()) {
          const seen = window.lines.get(`${line.asset}|${line.address}`)
          if (seen === undefined) window.lines.set(`${line.asset}|${line.address}`, line)
          else {
            seen.ledger += line.ledger
            seen.opened ||= line.opened
          }
        }
        window.endBlock = heads.get(chain.chainId)!
        window.running -= 1
        if (window.running > 0) continue
        windows.delete(keyOf(chain))
        const differences = await Effect.runPromise(windowFindings(window))
        tallyAudit({ _tag: "chain", where, lines: window.lines.size, findings: differences.length })
        findings.push(...differences)
      }
      if (findings.length > 0) {
        throw new Error(`the ledgers of ${where} and of the servers before it on its chain disagree with the chain:\n${findings.join("\n")}`)
      }
    }
  }
}

// What `address` holds of `asset` at block `n`: nothing where the token has no code (a preset chain places only the
// tokens its test uses, and places them after the chain starts).
const heldAt = (chain: WatchedChain, asset: string, address: string, n: number) =>
  Chain.LedgerLines.balanceAt(chain, asset, address, n).pipe(
    Effect.catchIf((error) => error.message.includes("returned no data"), () => Effect.succeed(0n))
  )

// What the collection address holds of each asset of `chain` at block `n`, keyed as the lines are.
const collectionHoldings = async (chain: WatchedChain, n: number) => {
  const address = chain.collectionAddress.toLowerCase()
  const assets = [...chain.tokens.values(), ...(chain.nativeAsset === undefined ? [] : [chain.nativeAsset])]
  const held = await Effect.runPromise(Effect.orDie(Effect.forEach(assets, (asset) => heldAt(chain, asset, address, n))))
  return new Map(assets.map((asset, i) => [`${asset}|${address}`, held[i]!] as const))
}

// The ledger's balance at each collection and deposit address of `chain` in this server's database, and zero at those
// it watches; less what it posted for transfers mined before `startedAt` (a test's watcher reads the chain from its
// first block), which happened before the server and are not its window's.
const ledgerLines = (chain: WatchedChain, startedAt: number) =>
  Effect.gen(function*() {
    const lines = new Map<string, Line>()
    const add = (asset: string, address: string, value: bigint) => {
      const line = lines.get(`${asset}|${address}`)
      if (line === undefined) lines.set(`${asset}|${address}`, { asset, address, ledger: value, opened: false })
      else line.ledger += value
    }
    const collection = chain.collectionAddress.toLowerCase()
    for (const asset of chain.tokens.values()) add(asset, collection, 0n)
    for (const deposit of yield* (yield* DepositStore).watched(chain.chainId, 0)) {
      for (const asset of chain.tokens.values()) add(asset, deposit.address.toLowerCase(), 0n)
    }
    for (const account of yield* (yield* LedgerBalances).addressBalances(chain.chainId)) {
      add(account.asset, account.address ?? collection, account.held)
    }
    const sql = yield* SqlClient.SqlClient
    const before = yield* sql<{ readonly asset: string; readonly address: string | null; readonly amount: string }>`
      SELECT a.asset, a.address, sum(e.amount)::text AS amount
      FROM ledger_entries e
      JOIN ledger_accounts a ON a.id = e.account_id
      JOIN ledger_transactions t ON t.id = e.transaction_id
      JOIN chain_receipts r ON r.id = t.source_id
      WHERE t.source IN ('receipt', 'receipt_reversal') AND r.chain_id = ${chain.chainId} AND r.block_number <= ${startedAt}
        AND a.kind IN ('collection', 'deposit')
      GROUP BY a.asset, a.address`
    for (const row of before) add(row.asset, row.address ?? collection, -BigInt(row.amount))
    const opened = yield* sql<{ readonly asset: string; readonly address: string | null }>`
      SELECT DISTINCT a.asset, a.address FROM ledger_entries e
      JOIN ledger_accounts a ON a.id = e.account_id
      JOIN ledger_transactions t ON t.id = e.transaction_id
      WHERE t.source = 'opening' AND a.chain_id = ${chain.chainId} AND a.kind IN ('collection', 'deposit')`
    for (const row of opened) {
      add(row.asset, row.address ?? collection, 0n)
      lines.get(`${row.asset}|${row.address ?? collection}`)!.opened = true
    }
    return lines
  })

// What the chain gained at each line over the window (to the confirmed head the last catch-up reached), against the ledgers' sum.
const windowFindings = (window: Window) =>
  Effect.gen(function*() {
    const { chain, endBlock } = window
    const lines = [...window.lines.values()]
    const gained = yield* Effect.forEach(lines, (line) =>
      Effect.map(
        heldAt(chain, line.asset, line.address, endBlock),
        (end) => line.opened ? end : end - (window.startBalances.get(`${line.asset}|${line.address}`) ?? 0n)
      ), { concurrency: 8 })
    return lines.flatMap((line, i) =>
      gained[i] === line.ledger ? [] : [
        `${line.address} ${line.opened ? "holds" : "gained"} ${gained[i]} of ${line.asset} on chain ${
          line.opened ? "at" : "from the first server's start to"
        } block ${endBlock}; the ledgers posted ${line.ledger}`
      ]
    )
  }).pipe(Effect.orDie)
