/**
 * A worker process for the crash tests: the worker of `app/worker.ts` (same jobs, same adapters,
 * same configuration), except that its `Payouts` port kills the process with SIGKILL the first time
 * a payout reaches the step named by `CRASH_AT`:
 *
 * - `signed`: the transfer is signed and about to be recorded;
 * - `recorded`: the signed transfer (hash and raw bytes) is recorded, not yet broadcast;
 * - `broadcast`: the node accepted the transfer; its outcome is not yet observed;
 * - `observed`: the chain says it paid the recipient; the payout is not yet completed;
 * - `submitted`: the executor's `ChainGateway` broadcast a pull payment's authorization; its
 *   transaction hash is not yet recorded;
 * - `captured`: the held payments' job broadcast a capture from the escrow; its transaction hash is
 *   not yet recorded.
 *
 * Before dying it prints `crashing at <step>` (stderr is a pipe: the write is synchronous), so a
 * test can tell a crash at the step from any other death.
 */
import { Application } from "@paygate/app"
import { Chain, ConfiguredPayoutPolicy, Database, LogOutput, Migrations, WorkerPorts } from "@paygate/adapters"
import { ChainGateway, EscrowChain, HoldExecutions, PayoutExecutions, Payouts, ReceiptRefundExecutions, SettlementDecisions } from "@paygate/domain"
import { Jobs } from "@paygate/worker"
import { Effect, Layer, Option } from "effect"
import { jobSettings } from "../../app/JobSettings.ts"
import { launch } from "../../app/Launch.ts"

const crashSteps = ["signed", "recorded", "broadcast", "observed", "submitted", "captured"] as const
type CrashStep = (typeof crashSteps)[number]

const step = process.env.CRASH_AT as CrashStep
if (!crashSteps.includes(step)) throw new Error(`CRASH_AT must be one of ${crashSteps.join(", ")}`)

const crash = Effect.sync(() => {
  process.stderr.write(`crashing at ${step}\n`)
  process.kill(process.pid, "SIGKILL")
})

const at = (here: CrashStep, when = true) => (here === step && when ? crash : Effect.void)

const crashing = Layer.effect(
  Payouts,
  Effect.map(Chain.ViemPayouts.make(), (real) =>
    Payouts.of({
      send: (transfer, record) =>
        real.send(transfer, (signed) =>
          at("signed").pipe(
            Effect.andThen(record(signed)),
            Effect.tap((recorded) => at("recorded", recorded))
          )).pipe(Effect.tap((sent) => at("broadcast", Option.isSome(sent)))),
      resend: real.resend,
      observe: (transfer, signed) => real.observe(transfer, signed).pipe(Effect.tap((outcome) => at("observed", outcome === "succeeded")))
    }))
)

const crashingGateway = Layer.effect(
  ChainGateway,
  Effect.gen(function*() {
    const real = yield* ChainGateway
    return ChainGateway.of({ ...real, submit: (proof) => real.submit(proof).pipe(Effect.tap(() => at("submitted"))) })
  })
).pipe(Layer.provide(WorkerPorts.chainGateway))

// The payout use cases of `Application.workerServices`, built again (`fresh`: a layer is built once
// per launch) over the crashing `Payouts`.
const crashingPayouts = Layer.fresh(Layer.mergeAll(PayoutExecutions.layer, SettlementDecisions.layer, ReceiptRefundExecutions.layer)).pipe(
  Layer.provide(Layer.mergeAll(Application.workerServices, crashing, ConfiguredPayoutPolicy.layer))
)

// The held payments' use case over an escrow whose captures kill the process once sent.
const crashingHolds = Layer.fresh(HoldExecutions.layer).pipe(
  Layer.provide(Layer.effect(
    EscrowChain,
    Effect.map(EscrowChain, (real) => EscrowChain.of({ ...real, capture: (...args) => real.capture(...args).pipe(Effect.tap(() => at("captured"))) }))
  )),
  Layer.provide(Application.workerServices)
)

// `app/WorkerLive.ts`'s composition, with the crashing ports over the real ones.
launch(
  Jobs.pipe(
    Layer.provide(Layer.mergeAll(Application.workerServices, crashingPayouts, crashingHolds, jobSettings)),
    Layer.provide(Migrations.layer),
    Layer.provide(Layer.merge(WorkerPorts.chainGateway, crashingGateway)),
    Layer.provide(Database.layerForWorker),
    Layer.provide(LogOutput.layer)
  )
)
