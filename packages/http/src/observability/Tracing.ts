/**
 * OpenTelemetry tracing, off unless configured (its `OtlpSettings`, which the host reads from these
 * variables): with `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, spans are exported over OTLP/HTTP (JSON) by
 * `effect/observability`'s `OtlpTracer`; without it nothing is exported and spans are not even built.
 *
 * What is traced once a tracer is installed, with no further code: every HTTP request (a server
 * span per request, `http.route` set to the matched template, W3C `traceparent` honoured), every
 * SQL statement and transaction (`@effect/sql-pg`, OpenTelemetry database conventions), the use
 * cases and repositories (`Effect.fn` / `Effect.withSpan` names), and chain calls wrapped in a span
 * by the chain adapter.
 *
 * | variable | meaning |
 * |---|---|
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | collector base URL (`http://collector:4318`); `/v1/traces` is appended |
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | full traces URL; wins over the base URL |
 * | `OTEL_EXPORTER_OTLP_HEADERS` | `key=value,key2=value2` sent with every export (e.g. an API key) |
 * | `OTEL_SERVICE_NAME` | `service.name` of the spans; default `paygate` |
 * | `OTEL_RESOURCE_ATTRIBUTES` | `key=value,…` added to the resource (e.g. `deployment.environment=prod`) |
 * | `OTEL_SDK_DISABLED` | `true` turns tracing off even with an endpoint |
 *
 * Spans are batched and sent every few seconds; the batch still buffered is sent when the process
 * shuts down (the layer's scope closes), within a bounded time.
 *
 * @module
 */
import { Effect, Layer, Option, References } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { OtlpSettings } from "../settings/OtlpSettings.ts"

/** `key=value,key2=value2` (values URI-decoded, as the OpenTelemetry specification says). */
export const parseKeyValues = (text: string): Record<string, string> => {
  const result: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const raw = pair.slice(at + 1).trim()
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // Kept as written.
    }
    if (key !== "") result[key] = value
  }
  return result
}

/** The tracing settings, `undefined` when tracing is off. */
export interface TracingSettings {
  readonly url: string
  readonly serviceName: string
  readonly headers: Record<string, string>
  readonly attributes: Record<string, string>
}

/** Reads {@link TracingSettings}; `undefined` when no endpoint is set or `OTEL_SDK_DISABLED=true`. */
export const settings = Effect.gen(function*() {
  const configured = yield* OtlpSettings
  const { endpoint: baseUrl, tracesEndpoint: tracesUrl } = configured
  if (configured.disabled || (Option.isNone(tracesUrl) && Option.isNone(baseUrl))) return undefined
  const url = Option.isSome(tracesUrl) ? tracesUrl.value.trim() : `${Option.getOrThrow(baseUrl).trim().replace(/\/+$/, "")}/v1/traces`
  const headers = parseKeyValues(Option.getOrElse(configured.headers, () => ""))
  const attributes = parseKeyValues(Option.getOrElse(configured.resourceAttributes, () => ""))
  return { url, serviceName: configured.serviceName, headers, attributes } satisfies TracingSettings
})

/** An OTLP/HTTP (JSON) tracer for explicit settings. */
export const layerOtlp = (tracing: TracingSettings) =>
  OtlpTracer.layer({
    url: tracing.url,
    resource: { serviceName: tracing.serviceName, attributes: tracing.attributes },
    headers: tracing.headers,
    shutdownTimeout: "3 seconds"
  }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))

/**
 * Tracing from its settings (see the module documentation): the OTLP tracer when an endpoint is
 * configured; else spans are turned off (`References.TracerEnabled`), since nothing would read them
 * and building one per request, statement and use case costs CPU. Provide it outside everything
 * else so every span reaches it.
 */
export const layer = Layer.unwrap(
  Effect.gen(function*() {
    const tracing = yield* settings
    if (tracing === undefined) return Layer.succeed(References.TracerEnabled, false)
    yield* Effect.logInfo("Tracing: OTLP export enabled", { url: tracing.url.replace(/\/\/[^@/]*@/, "//"), serviceName: tracing.serviceName })
    return layerOtlp(tracing)
  })
)
