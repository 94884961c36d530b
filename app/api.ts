/** The API alone, for processes next to `npm run worker` ones (as `WORKER_IN_PROCESS=false npm start`). */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Layer } from "effect"
import { ApiLive } from "./Service.ts"

Layer.launch(ApiLive).pipe(NodeRuntime.runMain)
