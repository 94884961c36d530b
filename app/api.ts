/** The API alone, for processes next to `npm run worker` ones (as `WORKER_IN_PROCESS=false npm start`). */
import { ApiLive } from "./Service.ts"
import { launch } from "./Launch.ts"

launch(ApiLive)
