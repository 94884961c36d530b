/**
 * How the chain watcher records what it read: every transfer log on its own. One that cannot be
 * recorded (a defect of the store, a payment that kept changing) is quarantined — kept with why,
 * logged as an error and counted (`paygate_chain_quarantined_transfers_total`) — and the others of
 * its transaction and range are recorded all the same, so that no log can hold the watcher's
 * cursor. Quarantined logs are tried again on later rounds while their block is still on the
 * chain.
 *
 * What reached a deposit address in a configured token is marked for its sweep to the collection
 * address; another token waits for the operator (`paygate-admin deposits sweep`).
 *
 * @module
 */
import { ProcessMetrics } from "@paygate/observability"
import { DepositStore, type ObservedTransfer, ReceiptStore, Reconciliation, type WatchedChain, WatchedChains } from "@paygate/domain"
import { Cause, Effect, Metric } from "effect"

/** Quarantined logs tried again per round and chain. */
const retriesPerRound = 50

/** Records one transfer (a rescanned one changes nothing), and marks a deposit's sweep due. */
const record = (transfer: ObservedTransfer) =>
  Effect.gen(function*() {
    const { receipt, result } = yield* (yield* Reconciliation).reconcile(transfer)
    if (result === "stale") return yield* Effect.die(new Error(`payment ${receipt.paymentId} kept changing`))
    if (result === "recorded") {
      // Tokens minted into the collection address (the local chain's own token set-up does) are
      // kept as unmatched receipts like any other, but are no news for a person watching the log.
      const minted = receipt.outcome === "unmatched" && /:0x0{40}$/i.test(receipt.from)
      yield* (minted ? Effect.logDebug : Effect.logInfo)(`watcher: ${receipt.outcome} transfer ${receipt.txHash}#${receipt.logIndex}`).pipe(
        Effect.annotateLogs({ chainId: transfer.chainId, paymentId: receipt.paymentId ?? "none" })
      )
    }
    // Whatever its outcome (marked again on a rescan: that costs at most a sweep that finds nothing).
    const deposit = transfer.deposit
    if (deposit !== undefined && transfer.unlisted !== true) {
      const address = deposit.account.slice(deposit.account.lastIndexOf(":") + 1)
      yield* (yield* DepositStore).markDue({ chainId: transfer.chainId, address, asset: transfer.asset })
    }
  })

/** What went wrong, in one line for the quarantine record: the error and the causes under it. */
const reasonOf = (cause: Cause.Cause<unknown>) => {
  const messages: Array<string> = []
  for (let error: unknown = Cause.squash(cause); error !== undefined && messages.length < 5;) {
    const message = error instanceof Error ? error.message : String(error)
    if (messages.at(-1) !== message) messages.push(message)
    error = error instanceof Error ? error.cause : undefined
  }
  return messages.join(": ")
}

/**
 * Records `transfer`; when that fails (anything but an interruption), quarantines it instead.
 * `retry`: it comes from the quarantine (logged as a warning, not counted again).
 */
const recordOrQuarantine = (transfer: ObservedTransfer, retry: boolean) =>
  Effect.gen(function*() {
    const receipts = yield* ReceiptStore
    const recorded = yield* record(transfer).pipe(
      Effect.as(true),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
        const reason = reasonOf(cause)
        return Effect.gen(function*() {
          const fresh = yield* receipts.quarantine(transfer, reason)
          const where = `${transfer.txHash}#${transfer.logIndex}`
          if (fresh || !retry) {
            yield* Metric.update(ProcessMetrics.quarantinedTransfers(transfer.chainId), 1)
            yield* Effect.logError(`watcher: transfer ${where} could not be recorded and is quarantined: ${reason}`, cause)
          } else {
            yield* Effect.logWarning(`watcher: quarantined transfer ${where} still cannot be recorded: ${reason}`)
          }
          return false
        })
      }),
      Effect.annotateLogs({ chainId: transfer.chainId })
    )
    if (recorded && retry) yield* receipts.resolveQuarantine(transfer, "recorded")
  })

/** Records every transfer of a range on its own; see the module documentation. */
export const recordTransfers = (transfers: ReadonlyArray<ObservedTransfer>) =>
  Effect.forEach(transfers, (transfer) => recordOrQuarantine(transfer, false), { discard: true })

/**
 * Tries the chain's quarantined transfers again; one whose block is no longer on the chain (a
 * reorganisation) is resolved as orphaned, never recorded.
 */
export const retryQuarantined = (chain: WatchedChain) =>
  Effect.gen(function*() {
    const receipts = yield* ReceiptStore
    const reads = yield* WatchedChains
    const waiting = yield* receipts.quarantined(chain.chainId, retriesPerRound)
    for (const transfer of waiting) {
      if ((yield* reads.blockHash(chain.chainId, transfer.blockNumber)) !== transfer.blockHash) {
        yield* receipts.resolveQuarantine(transfer, "orphaned")
        yield* Effect.logWarning(`watcher: quarantined transfer ${transfer.txHash}#${transfer.logIndex} left the chain; dropped`)
        continue
      }
      yield* recordOrQuarantine(transfer, true)
    }
  })
