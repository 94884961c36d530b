/**
 * The chain watcher (reconciliation from the chain): follows the `Transfer` logs of each configured
 * token into its chain's collection address (and, where the native asset is accepted, the blocks'
 * transactions sending it there, or to a deposit address whose factory sweeps it),
 * and those of any token into the deposit addresses not swept yet or handed out in the last `depositWatchMs`, and hands every one to `Reconciliation`
 * (`TransferRecording`: each log on its own, one that cannot be recorded quarantined), so that a
 * payment whose wallet never confirmed is still found, and nothing that arrives is lost. What
 * reaches a deposit address in a configured token is marked for its sweep to the collection
 * address (`DepositStore.markDue`). It reads the chains through the domain's `WatchedChains` port.
 *
 * - Only blocks with the chain's required confirmations are read (up to head − confirmations + 1):
 *   a reorganisation within that depth never reaches a receipt.
 * - Per chain, a cursor (next block, hash of the last block read) is stored and leased
 *   (`ScanCursors`): one worker scans a chain at a time, any number run; a killed worker's lease
 *   ends and another resumes from the stored cursor. The cursor moves only after the range's
 *   receipts are written, and a rescanned log is recorded once (unique per chain, transaction, log).
 * - A stored hash that no longer matches the chain (a reorganisation deeper than the confirmations)
 *   is logged as an error and the last `reorgRewindBlocks` are read again, or more: back to the
 *   newest checkpoint (a block hash kept as the cursor moved) the chain still has, with an alert
 *   when that is past the window. The block before a range is read again once the range is read:
 *   a reorganisation during the read (below the range too) leaves the range unrecorded, for the
 *   next round to find.
 * - A chain seen for the first time is read from `lookbackBlocks` before its confirmed head.
 * - A range read again (after a reorganisation, or a lease lost before the cursor moved) first
 *   reverses the receipts recorded in it whose block the chain no longer has (`ReceiptReversals`: a
 *   payment that succeeded with one goes back to `processing`); a transfer mined again is recorded again.
 *
 * @module
 */
import { ProcessMetrics } from "@paygate/observability"
import {
  DepositStore,
  type Receipt,
  ReceiptReversals,
  ReceiptStore,
  Reconciliation,
  ScanCursors,
  type WatchedChain,
  WatchedChains
} from "@paygate/domain"
import { Clock, Context, Effect, Layer, Metric, Option } from "effect"
import { randomUUID } from "node:crypto"
import { forever } from "./Forever.ts"
import { recordTransfers, retryQuarantined } from "./TransferRecording.ts"

/** Tunables of the chain watcher. */
export interface WatcherSettingsShape {
  /** Pause when every chain is read up to its confirmed head. */
  readonly pollIntervalMs: number
  /** How long a chain stays with a worker that stopped renewing it (killed). */
  readonly leaseMs: number
  /** Blocks read per `eth_getLogs` (public RPCs cap the range). */
  readonly batchBlocks: number
  /** Blocks before the confirmed head where a chain's first scan starts. */
  readonly lookbackBlocks: number
  /** Blocks read again when a stored block hash no longer matches. */
  readonly reorgRewindBlocks: number
  /**
   * How long after it was handed out a deposit address is still followed once swept (late transfers
   * included); one never swept (nothing arrived yet, or not swept yet) is followed however late.
   */
  readonly depositWatchMs: number
}

/** The defaults: every 2 s, 1000 blocks per read, the last 1000 blocks on a chain's first scan, swept deposit addresses for 30 days. */
export const defaultWatcherSettings: WatcherSettingsShape = {
  pollIntervalMs: 2_000,
  leaseMs: 60_000,
  batchBlocks: 1_000,
  lookbackBlocks: 1_000,
  reorgRewindBlocks: 64,
  depositWatchMs: 30 * 86_400_000
}

/** Watcher tunables (the host builds them, e.g. with {@link watcherSettingsFrom}). */
export class WatcherSettings extends Context.Service<WatcherSettings, WatcherSettingsShape>()("@paygate/worker/WatcherSettings") {}

/**
 * The settings with what the operator configured (`WATCHER_POLL_MS`, `WATCHER_LEASE_MS`,
 * `WATCHER_BATCH_BLOCKS`, `WATCHER_LOOKBACK_BLOCKS`), each unset one its default.
 */
export const watcherSettingsFrom = (
  configured: Readonly<Record<"pollIntervalMs" | "leaseMs" | "batchBlocks" | "lookbackBlocks", Option.Option<number>>>
): WatcherSettingsShape => {
  const d = defaultWatcherSettings
  const atLeast = (min: number, value: Option.Option<number>, fallback: number) => Math.max(min, Option.getOrElse(value, () => fallback))
  return {
    ...d,
    pollIntervalMs: atLeast(1, configured.pollIntervalMs, d.pollIntervalMs),
    leaseMs: atLeast(1_000, configured.leaseMs, d.leaseMs),
    batchBlocks: atLeast(1, configured.batchBlocks, d.batchBlocks),
    lookbackBlocks: atLeast(0, configured.lookbackBlocks, d.lookbackBlocks)
  }
}

/**
 * Reverses the receipts of `chain` in blocks `from`..`to` whose block the chain no longer has (its
 * hash changed): their transfers may be gone; reading the range records those mined again.
 */
const reverseRemoved = (
  chain: WatchedChain,
  from: number,
  to: number,
  reversals: ReceiptReversals["Service"],
  reads: WatchedChains["Service"]
) =>
  Effect.gen(function*() {
    const hashes = new Map<number, string>()
    const onChain = (receipt: Receipt) =>
      Effect.gen(function*() {
        let hash = hashes.get(receipt.blockNumber)
        if (hash === undefined) {
          hash = yield* reads.blockHash(chain.chainId, receipt.blockNumber)
          hashes.set(receipt.blockNumber, hash)
        }
        return hash === receipt.blockHash.toLowerCase()
      })
    const reversed = yield* reversals.reverseRemoved(chain.chainId, from, to, onChain)
    for (const receipt of reversed) {
      yield* Effect.logError(`watcher: transfer ${receipt.txHash}#${receipt.logIndex} of block ${receipt.blockNumber} is no longer on chain; its receipt is reversed`).pipe(
        Effect.annotateLogs({ chainId: chain.chainId, paymentId: receipt.paymentId ?? "none", receiptId: receipt.id })
      )
    }
  })

/**
 * Where to read again from after block `next - 1` changed: at least the last `window` blocks, and
 * back to the newest checkpoint the chain still has when the reorganisation reached past them. Past
 * the window, or with no checkpoint left unchanged (then from the oldest one, if older), it is an
 * alert: an error log and `paygate_chain_deep_reorgs_total{window="beyond"}`, never a silent loss.
 */
const rewind = (chain: WatchedChain, next: number, window: number, cursors: ScanCursors["Service"], reads: WatchedChains["Service"]) =>
  Effect.gen(function*() {
    const windowStart = Math.max(0, next - window)
    const checkpoints = (yield* cursors.checkpoints(chain.chainId)).filter((c) => c.blockNumber < next - 1)
    let forkedAfter: number | undefined
    for (const checkpoint of checkpoints) {
      if ((yield* reads.blockHash(chain.chainId, checkpoint.blockNumber)) === checkpoint.hash) {
        forkedAfter = checkpoint.blockNumber
        break
      }
    }
    const oldest = checkpoints.at(-1)?.blockNumber
    const from = forkedAfter !== undefined ? Math.min(windowStart, forkedAfter + 1) : Math.min(windowStart, oldest ?? windowStart)
    // No unchanged checkpoint: how deep it reached is unknown, which is as loud as too deep.
    const beyond = from < windowStart || forkedAfter === undefined
    const changed = `watcher: ${chain.chainId} block ${next - 1} changed after ${chain.requiredConfirmations} confirmation(s)`
    yield* Metric.update(ProcessMetrics.chainDeepReorgs(chain.chainId, beyond ? "beyond" : "within"), 1)
    yield* Effect.logError(
      !beyond
        ? `${changed}; reading again from ${from}`
        : forkedAfter === undefined
        ? `${changed}, and no earlier block it kept a hash of is unchanged: the reorganisation may reach below block ${from}; reading again from ${from}. Check the ledger against the chain (npm run admin -- ledger report).`
        : `${changed}, and the reorganisation reached back to block ${from}, past the ${window}-block rewind window; reading again from ${from}.`
    ).pipe(Effect.annotateLogs({ chainId: chain.chainId, alert: beyond ? "reorg_beyond_window" : "reorg" }))
    return from
  })

/**
 * Reads the next confirmed range of one chain if this worker holds (or gets) its cursor; answers
 * whether more is left to read right away.
 */
const scanChain = (
  chain: WatchedChain,
  holder: string,
  settings: WatcherSettingsShape,
  cursors: ScanCursors["Service"],
  deposits: DepositStore["Service"],
  reversals: ReceiptReversals["Service"],
  reads: WatchedChains["Service"]
) =>
  Effect.gen(function*() {
    const claimed = yield* cursors.claim(chain.chainId, holder, settings.leaseMs)
    if (claimed._tag === "None") return false
    const cursor = claimed.value
    const safe = yield* reads.safeHead(chain.chainId)
    let next = cursor.nextBlock ?? Math.max(0, safe - settings.lookbackBlocks + 1)
    let continued = cursor.lastHash
    if (continued !== null && next > 0 && (yield* reads.blockHash(chain.chainId, next - 1)) !== continued) {
      next = yield* rewind(chain, next, settings.reorgRewindBlocks, cursors, reads)
      continued = null
    }
    // Every round, new blocks or not: a log the store refused waits for the store, not for the chain.
    yield* retryQuarantined(chain)
    const to = Math.min(safe, next + settings.batchBlocks - 1)
    if (to < next) {
      // Nothing confirmed yet past the cursor; a first scan still records where it starts.
      if (cursor.nextBlock === null) yield* cursors.advance(chain.chainId, holder, { nextBlock: next, lastHash: null }, settings.leaseMs)
      return false
    }
    // The block this range continues, with the hash the blocks before it were read with.
    const anchor = next > 0 ? { block: next - 1, hash: continued ?? (yield* reads.blockHash(chain.chainId, next - 1)) } : undefined
    const lastHash = yield* reads.blockHash(chain.chainId, to)
    yield* reverseRemoved(chain, next, to, reversals, reads)
    const transfers = yield* reads.transfersIn(chain.chainId, next, to)
    // Read after the confirmed head: an address handed out later cannot have a transfer in this range.
    const watched = !chain.depositAddresses
      ? []
      : yield* deposits.watched(chain.chainId, (yield* Clock.currentTimeMillis) - settings.depositWatchMs)
    const native = yield* reads.nativeTransfersIn(chain.chainId, next, to, watched)
    const toDeposits = watched.length === 0 ? [] : yield* reads.depositTransfersIn(chain.chainId, next, to, watched)
    // A reorganisation while the range was read replaced blocks below it too: its new blocks would
    // continue a block the receipts before them are not in. The next round finds it and reads again.
    if (anchor !== undefined && (yield* reads.blockHash(chain.chainId, anchor.block)) !== anchor.hash) {
      yield* Effect.logWarning(`watcher: ${chain.chainId} block ${anchor.block} changed while blocks ${next}-${to} were read; reading again`)
      return true
    }
    yield* recordTransfers([...transfers, ...native, ...toDeposits])
    const moved = yield* cursors.advance(chain.chainId, holder, { nextBlock: to + 1, lastHash }, settings.leaseMs)
    return moved && to < safe
  }).pipe(
    Effect.catchTag("ChainUnavailable", (error) =>
      Effect.as(Effect.logWarning(`watcher: ${chain.chainId} could not be read; trying again`, error.message), false))
  )

/** The watcher loop over `chains`; see the module documentation. */
export const chainWatcher = (
  chains: ReadonlyArray<WatchedChain>
): Effect.Effect<never, never, WatcherSettings | WatchedChains | ScanCursors | Reconciliation | DepositStore | ReceiptStore | ReceiptReversals> =>
  Effect.gen(function*() {
    const settings = yield* WatcherSettings
    const cursors = yield* ScanCursors
    const deposits = yield* DepositStore
    const reversals = yield* ReceiptReversals
    const reads = yield* WatchedChains
    const holder = `watcher-${randomUUID()}`
    // A clean stop hands the chains over at once instead of after the lease.
    yield* Effect.addFinalizer(() => Effect.forEach(chains, (chain) => cursors.release(chain.chainId, holder), { discard: true }))
    const recording = yield* Effect.context<Reconciliation | DepositStore | ReceiptStore | WatchedChains>()
    const round = Effect.map(
      Effect.forEach(chains, (chain) => Effect.provideContext(scanChain(chain, holder, settings, cursors, deposits, reversals, reads), recording)),
      (busy) => busy.some((b) => b)
    )
    return yield* forever("watcher", round, settings.pollIntervalMs)
  }).pipe(Effect.scoped)

/** The watcher over the watched chains, forked into the layer's scope (nothing to do without chains). */
export const WatcherJob: Layer.Layer<
  never,
  never,
  WatcherSettings | WatchedChains | ScanCursors | Reconciliation | DepositStore | ReceiptStore | ReceiptReversals
> = Layer
  .effectDiscard(
    Effect.gen(function*() {
      const { chains } = yield* WatchedChains
      if (chains.length === 0) return
      yield* Effect.forkScoped(chainWatcher(chains))
      yield* Effect.logInfo(`worker started: chain watcher (${chains.map((c) => c.chainId).join(", ")})`)
    })
  )
