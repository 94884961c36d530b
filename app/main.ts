/** `npm start`: the API with the worker in this process (`WORKER_IN_PROCESS=false`: the API alone). */
import { launch } from "./Launch.ts"
import { ServiceLive } from "./Service.ts"

launch(ServiceLive)
