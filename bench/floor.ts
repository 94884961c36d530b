/**
 * The framework floor: the least an Effect 4 service on this stack costs per request. A minimal
 * `HttpApi` app (schemas for the path, headers, payload and responses; `HttpApiBuilder`,
 * `NodeHttpServer`) on `@effect/sql-pg` with the service's pool of 10 and its tables, doing the
 * service's statements and nothing else: no authentication, rate limit, idempotency lookup,
 * logging or metrics. The service's pipeline is what it costs above this.
 *
 * - `GET /floor/payments/:id`: the status `SELECT` (one round trip), responded to as the service does.
 * - `POST /floor/payments` (`Idempotency-Key` header): the service's create statements: the
 *   idempotency claim, then the payment, its stored response and its outbox event in one statement
 *   (two round trips).
 * - `GET /floor/pipeline/payments/:id`: the status read again, behind the contract's pipeline
 *   written plainly (`lib/PlainPipeline.ts`): what the service's pipeline would cost at best. Its
 *   requests are served by the same process, so a CPU profile of the floor (`BENCH_PROFILE=1`)
 *   counts them too when the `status.pipeline` load runs.
 *
 * Environment: `DATABASE_URL`, `PORT` (0 = any), `PARTNER_ID`, `MERCHANT_ID` (as `baseline.ts`).
 * Prints `listening <port>` when ready.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiError, HttpApiGroup } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import {
  appEnvironment,
  bodySha256,
  claimKey,
  createdResponse,
  createdEvent,
  idempotencyTtlMillis,
  insertPaymentResponseEvent,
  newId,
  paymentRow,
  type PaymentRow,
  paymentValues,
  statusResponse,
  statusSelect
} from "./lib/rows.ts"
import * as PlainPipeline from "./lib/PlainPipeline.ts"

const { merchantId, partnerId, url } = appEnvironment("floor")

const Amount = Schema.Struct({ unit: Schema.String, value: Schema.String })
const CreateRequest = Schema.Struct({ amount: Amount, referenceId: Schema.String })
const Created = Schema.Struct({
  paymentId: Schema.String,
  status: Schema.String,
  expiresAt: Schema.Number,
  isFinal: Schema.Boolean,
  pollInMs: Schema.Number
})
const Status = Schema.Struct({ status: Schema.String, isFinal: Schema.Boolean })
const statusAt = <const Path extends HttpRouter.PathInput>(path: Path) =>
  HttpApiEndpoint.get("status", path, { params: { id: Schema.String }, success: Status, error: HttpApiError.NotFound })

class FloorGroup extends HttpApiGroup.make("floor")
  .add(
    statusAt("/floor/payments/:id"),
    HttpApiEndpoint.post("create", "/floor/payments", {
      headers: { "idempotency-key": Schema.String },
      payload: CreateRequest,
      success: Created,
      error: HttpApiError.Conflict
    })
  )
{}

/** The status read again, behind the contract's pipeline written plainly (`lib/PlainPipeline.ts`). */
class PipelineGroup extends HttpApiGroup.make("pipeline")
  .add(
    statusAt("/floor/pipeline/payments/:id")
  )
  .middleware(PlainPipeline.PlainPipeline)
{}

class FloorApi extends HttpApi.make("floor").add(FloorGroup).add(PipelineGroup) {}

const route = "POST /floor/payments"

const FloorHandlers = HttpApiBuilder.group(
  FloorApi,
  "floor",
  Effect.fnUntraced(function*(handlers) {
    const sql = yield* SqlClient.SqlClient
    return handlers.handleAll({
      status: ({ params }) =>
        sql.unsafe<{ status: string; expires_at: string }>(statusSelect, [params.id]).pipe(
          Effect.orDie,
          Effect.flatMap(([row]) => (row === undefined ? Effect.fail(new HttpApiError.NotFound()) : Effect.succeed(statusResponse(row))))
        ),
      create: ({ headers, payload, request }) =>
        Effect.gen(function*() {
          const key = headers["idempotency-key"]
          const now = Date.now()
          const text = yield* Effect.orDie(request.text)
          const claimed = yield* sql.unsafe(claimKey, [partnerId, route, key, bodySha256(text), now, now + idempotencyTtlMillis])
          if (claimed.length === 0) return yield* new HttpApiError.Conflict()
          const p = paymentRow(partnerId, merchantId, payload)
          const eventId = newId("evt")
          const created = createdResponse(p)
          const event = JSON.stringify(createdEvent(eventId, p))
          yield* sql.unsafe(insertPaymentResponseEvent, [...paymentValues(p), JSON.stringify(created), partnerId, route, key, eventId, event])
          return created
        }).pipe(Effect.catchTag("SqlError", Effect.die))
    })
  })
)

const PipelineHandlers = HttpApiBuilder.group(
  FloorApi,
  "pipeline",
  Effect.fnUntraced(function*(handlers) {
    const sql = yield* SqlClient.SqlClient
    return handlers.handle("status", ({ params }) =>
      Effect.flatMap(Effect.service(PlainPipeline.CurrentCaller), (caller) =>
        // An id that is not well-formed text finds nothing, without a query.
        !params.id.isWellFormed() || params.id.includes("\0")
          ? Effect.fail(new HttpApiError.NotFound())
          : sql.unsafe<PaymentRow>(statusSelect, [params.id]).pipe(
            Effect.orDie,
            Effect.flatMap(([row]) =>
              row === undefined || row.partner_id !== caller.partnerId || row.merchant_id !== caller.merchantId || row.mode !== caller.mode
                ? Effect.fail(new HttpApiError.NotFound())
                : Effect.succeed(statusResponse(row))
            )
          )))
  })
)

const Serve = HttpRouter.serve(HttpApiBuilder.layer(FloorApi), { disableLogger: true }).pipe(
  Layer.provide([FloorHandlers, PipelineHandlers]),
  Layer.provide(PlainPipeline.layer),
  Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 10 }))
)

const main = Effect.gen(function*() {
  yield* Layer.build(Serve)
  const { address } = yield* HttpServer.HttpServer
  process.stdout.write(`listening ${address._tag === "UnixPathAddress" ? "" : address.port}\n`)
  return yield* Effect.never
}).pipe(Effect.scoped, Effect.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })))

NodeRuntime.runMain(main)
