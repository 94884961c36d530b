/** `npm start`: the API with the worker in this process (`WORKER_IN_PROCESS=false`: the API alone). */
import { launch } from "./Launch.ts"
import { chooseDefaultPorts } from "./Ports.ts"

// Before the service (and its configuration) is loaded: the default ports it will read.
for (const line of await chooseDefaultPorts()) process.stderr.write(`${line}\n`)
const { ServiceLive } = await import("./Service.ts")
launch(ServiceLive)
