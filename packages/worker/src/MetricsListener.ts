/**
 * `GET /metrics` of a worker running in its own process (`npm run worker`): a small HTTP listener
 * on a port of its own (all interfaces, like the service's) answers the process's metrics in the
 * Prometheus text format: webhook delivery outcomes, chain RPC errors, memory and CPU
 * (`@paygate/observability` `ProcessMetrics`); every other request gets 404. The composition root
 * starts it when `WORKER_METRICS_PORT` is set. The worker inside `npm start` needs none: it shares
 * the service's registry, so the service's `GET /metrics` shows its counters.
 *
 * Like the service's, the endpoint needs no credential: keep the port off the public interface.
 *
 * @module
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ProcessMetrics } from "@paygate/observability"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"

const metricsRoute = HttpRouter.add(
  "GET",
  "/metrics",
  Effect.map(ProcessMetrics.render, (body) =>
    HttpServerResponse.text(body, { contentType: ProcessMetrics.contentType, headers: { "cache-control": "no-store" } }))
)

/** The listener on `port`. */
export const metricsListener = (port: number) =>
  HttpRouter.serve(Layer.merge(metricsRoute, Layer.effectDiscard(ProcessMetrics.registerInitialSeries)), {
    disableLogger: true
  }).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port })))
