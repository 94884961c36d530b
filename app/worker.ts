/** `npm run worker`: the worker in its own process (`WorkerLive.ts`). */
import { launch } from "./Launch.ts"
import { WorkerProcessLive } from "./WorkerLive.ts"

launch(WorkerProcessLive)
