import * as HandlerGroup from "./HandlerGroup.ts"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { Readiness } from "./Readiness.ts"

/** Liveness responds while the process runs; readiness asks the database. */
export const SystemHandlers = HandlerGroup.group(
  PaygateApi,
  "system",
  Effect.fn(function*(handlers) {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        readiness.check.pipe(
          Effect.map((migrations) => ({ status: "ready" as const, migrations })),
          Effect.catch((reason) => Effect.fail({ status: "not_ready" as const, reason }))
        ))
  })
)
