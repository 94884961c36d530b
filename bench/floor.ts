/**
 * The framework floor: the least an Effect 4 service on this stack costs per request. A minimal
 * `HttpApi` app (schemas for the path, headers, payload and answers; `HttpApiBuilder`,
 * `NodeHttpServer`) on `@effect/sql-pg` with the service's pool of 10 and its tables, doing the
 * service's statements and nothing else: no authentication, rate limit, idempotency lookup,
 * logging or metrics. The service's pipeline is what it costs above this.
 *
 * - `GET /floor/payments/:id`: the status `SELECT` (one round trip), answered as the service does.
 * - `POST /floor/payments` (`Idempotency-Key` header): the service's create statements: the
 *   idempotency claim, then the payment, its stored answer and its outbox event in one statement
 *   (two round trips).
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
  createdAnswer,
  createdEvent,
  idempotencyTtlMillis,
  insertPaymentAnswerEvent,
  newId,
  paymentRow,
  paymentValues,
  statusAnswer,
  statusSelect
} from "./lib/rows.ts"

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

class FloorGroup extends HttpApiGroup.make("floor")
  .add(
    HttpApiEndpoint.get("status", "/floor/payments/:id", {
      params: { id: Schema.String },
      success: Status,
      error: HttpApiError.NotFound
    }),
    HttpApiEndpoint.post("create", "/floor/payments", {
      headers: { "idempotency-key": Schema.String },
      payload: CreateRequest,
      success: Created,
      error: HttpApiError.Conflict
    })
  )
{}

class FloorApi extends HttpApi.make("floor").add(FloorGroup) {}

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
          Effect.flatMap(([row]) => (row === undefined ? Effect.fail(new HttpApiError.NotFound()) : Effect.succeed(statusAnswer(row))))
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
          const answer = createdAnswer(p)
          const event = JSON.stringify(createdEvent(eventId, p))
          yield* sql.unsafe(insertPaymentAnswerEvent, [...paymentValues(p), JSON.stringify(answer), partnerId, route, key, eventId, event])
          return answer
        }).pipe(Effect.catchTag("SqlError", Effect.die))
    })
  })
)

const Serve = HttpRouter.serve(HttpApiBuilder.layer(FloorApi), { disableLogger: true }).pipe(
  Layer.provide(FloorHandlers),
  Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 10 }))
)

const main = Effect.gen(function*() {
  yield* Layer.build(Serve)
  const { address } = yield* HttpServer.HttpServer
  process.stdout.write(`listening ${address._tag === "UnixPathAddress" ? "" : address.port}\n`)
  return yield* Effect.never
}).pipe(Effect.scoped, Effect.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })))

NodeRuntime.runMain(main)
