/** `npm start`: the API with the worker in this process (`WORKER_IN_PROCESS=false`: the API alone). */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Layer } from "effect"
import { ServiceLive } from "./Service.ts"

Layer.launch(ServiceLive).pipe(NodeRuntime.runMain)
