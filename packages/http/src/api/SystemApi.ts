import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

/** Liveness and readiness probes. */
export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) })
      .annotate(OpenApi.Summary, "The process is up"),
    HttpApiEndpoint.get("readyz", "/readyz", {
      success: Schema.Struct({ status: Schema.Literal("ready"), migrations: Schema.Int }),
      error: Schema.Struct({ status: Schema.Literal("not_ready"), reason: Schema.String }).pipe(
        Schema.annotate({ httpApiStatus: 503, identifier: "NotReady" })
      )
    }).annotate(OpenApi.Summary, "The database is reachable and migrations are applied")
  )
  .annotate(OpenApi.Title, "System")
{}
