/** `npm start`: the API with the worker in this process (`WORKER_IN_PROCESS=false`: the API alone). */
import { LogOutput } from "@paygate/adapters"
import { ConfigProvider, Effect } from "effect"
import { type EarlierStart, settleEarlierStart } from "./EarlierStart.ts"
import { launch } from "./Launch.ts"
import { chooseDefaultPorts } from "./Ports.ts"

// Before the ports are chosen: a running paygate on the same data, or the chain a killed start left.
// A configuration that does not parse is left to the service's start, which says so in one line.
// Its own reading of the environment: the default provider is a snapshot taken once, and would miss
// the ports chosen below.
const earlier = await Effect.runPromise(
  settleEarlierStart.pipe(
    Effect.provide(LogOutput.layer),
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv()),
    Effect.orElseSucceed((): EarlierStart => ({ _tag: "Proceed" }))
  )
)
if (earlier._tag === "Stop") {
  process.stdout.write(`${earlier.line}\n`)
  process.exit(earlier.exitCode)
}
// Before the service (and its configuration) is loaded: the default ports it will read.
for (const line of await chooseDefaultPorts()) process.stderr.write(`${line}\n`)
const { ServiceLive } = await import("./Service.ts")
launch(ServiceLive)
