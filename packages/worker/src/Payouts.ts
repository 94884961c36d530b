/**
 * The payout jobs (API rules §4 and §11): transfers out of each chain's collection address.
 *
 * - **settlement decisions**: every `pollIntervalMs`, decides the settlement of payments that
 *   succeeded (`SettlementDecisions`): a settlement payout to the merchant's destination for the
 *   asset, or none.
 * - **payouts**: claims pending payouts whose chain work is due (leases, `FOR UPDATE SKIP LOCKED`,
 *   so any number of workers share them) and advances each through `PayoutExecutions`: send the
 *   transfer once (recorded before its broadcast), then watch it until the chain decides. A payout
 *   on its way is checked again after `pendingRecheckMs`; after an RPC failure (or on a chain that
 *   cannot pay out yet) after `unknownRecheckMs`; after a failed attempt after `retryMs`.
 * - **receipt refunds**: the same for refunds of receipts (what a payment did not keep, sent back to
 *   the transfer's sender: `ReceiptRefundExecutions`), with the same settings.
 *
 * The chain side is the domain's `Payouts` port (the composition root's `Application.workerServices`):
 * transfers of one collection address are sent with one nonce sequence.
 *
 * @module
 */
import {
  PayoutExecutions,
  type PayoutKey,
  type PayoutStep,
  PayoutWork,
  ReceiptRefundExecutions,
  type ReceiptId,
  ReceiptStore,
  SettlementDecisions
} from "@paygate/domain"
import { Context, Effect, Layer, type Option } from "effect"
import { forever } from "./Forever.ts"
import {
  type ConfiguredLeasedWork,
  defaultLeasedWorkSettings,
  leasedWork,
  leasedWorkSettingsFrom,
  type LeasedWorkSettings,
  millisOr
} from "./LeasedWork.ts"

/**
 * Tunables of the payout jobs: `batch` payouts claimed (and payments decided) per round,
 * `concurrency` advanced at once (sends still queue per collection address), and after a failed
 * attempt (its transfer reverted) the next one after `retryMs`.
 */
export interface PayoutSettingsShape extends LeasedWorkSettings {
  readonly retryMs: number
}

/** The defaults: as the executor's, and a failed attempt retried after 30 s. */
export const defaultPayoutSettings: PayoutSettingsShape = { ...defaultLeasedWorkSettings, retryMs: 30_000 }

/** Payout tunables, also the deposit sweeps' (the host builds them, e.g. with {@link payoutSettingsFrom}). */
export class PayoutSettings extends Context.Service<PayoutSettings, PayoutSettingsShape>()("@paygate/worker/PayoutSettings") {}

/**
 * The settings with what the operator configured (`PAYOUT_POLL_MS`, `PAYOUT_LEASE_MS`,
 * `PAYOUT_PENDING_RECHECK_MS`, `PAYOUT_UNKNOWN_RECHECK_MS`, `PAYOUT_RETRY_MS`), each unset one its
 * default (`PAYOUT_MAX_ATTEMPTS` is the use cases' `PayoutPolicy`).
 */
export const payoutSettingsFrom = (configured: {
  readonly leased: ConfiguredLeasedWork
  readonly retryMs: Option.Option<number>
}): PayoutSettingsShape => ({
  ...leasedWorkSettingsFrom(configured.leased),
  retryMs: millisOr(configured.retryMs, defaultPayoutSettings.retryMs)
})

/** The settlement decision loop; see the module documentation. */
export const settlementDecider: Effect.Effect<never, never, PayoutSettings | SettlementDecisions> = Effect.gen(function*() {
  const settings = yield* PayoutSettings
  const decisions = yield* SettlementDecisions
  const round = Effect.map(decisions.decideNext(settings.batch), (decided) => decided >= settings.batch)
  return yield* forever("settlements", round, settings.pollIntervalMs)
})

/** The payout loop; see the module documentation. */
export const payoutExecutor: Effect.Effect<never, never, PayoutSettings | PayoutWork | PayoutExecutions> = Effect.gen(function*() {
  const settings = yield* PayoutSettings
  const work = yield* PayoutWork
  const executions = yield* PayoutExecutions
  return yield* leasedWork<PayoutKey, Exclude<PayoutStep, "final">>({
    name: "payouts",
    settings,
    claim: work.claim,
    release: work.release,
    advance: executions.advance,
    recheckAfter: (step) =>
      step === "pending" ? settings.pendingRecheckMs : step === "unknown" ? settings.unknownRecheckMs : settings.retryMs,
    describe: (key) => `the ${key.kind}${(key.leg ?? 0) === 0 ? "" : ` ${key.leg}`} of ${key.paymentId}`
  })
})

/** The receipt refund loop: pending refunds of receipts, sent and followed like payouts, from the same collection addresses. */
export const receiptRefunder: Effect.Effect<never, never, PayoutSettings | ReceiptStore | ReceiptRefundExecutions> = Effect.gen(function*() {
  const settings = yield* PayoutSettings
  const store = yield* ReceiptStore
  const executions = yield* ReceiptRefundExecutions
  return yield* leasedWork<ReceiptId, Exclude<PayoutStep, "final">>({
    name: "receipt refunds",
    settings,
    claim: store.claimRefunds,
    release: store.releaseRefund,
    advance: executions.advance,
    recheckAfter: (step) =>
      step === "pending" ? settings.pendingRecheckMs : step === "unknown" ? settings.unknownRecheckMs : settings.retryMs,
    describe: (id) => `the refund of ${id}`
  })
})

/** The payout jobs, forked into the layer's scope. */
export const PayoutJobs: Layer.Layer<
  never,
  never,
  PayoutSettings | SettlementDecisions | PayoutWork | PayoutExecutions | ReceiptStore | ReceiptRefundExecutions
> = Layer.effectDiscard(
  Effect.gen(function*() {
    yield* Effect.forkScoped(settlementDecider)
    yield* Effect.forkScoped(payoutExecutor)
    yield* Effect.forkScoped(receiptRefunder)
    yield* Effect.logInfo("worker started: settlements, payouts, receipt refunds")
  })
)

/** The use cases the payout jobs run (the host builds them over its ports, with the `PayoutPolicy` it configures). */
export type PayoutsRequirements = SettlementDecisions | PayoutWork | PayoutExecutions | ReceiptStore | ReceiptRefundExecutions

/** The payout jobs tuned by `settings`. */
export const payoutsWith = <E>(settings: Layer.Layer<PayoutSettings, E>): Layer.Layer<never, E, PayoutsRequirements> =>
  PayoutJobs.pipe(Layer.provide(settings))
