import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer as createHttpServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./support/FreePort.ts"
import { copyMigratedDatabase } from "./support/MigratedDataDir.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// OpenTelemetry tracing of the service as deployed: off by default; with OTEL_EXPORTER_OTLP_ENDPOINT
// set, spans for each HTTP request, each SQL statement and the use cases reach the collector over
// OTLP/HTTP (JSON), the last batch when the service shuts down. The collector here is a stub.

const root = new URL("..", import.meta.url).pathname
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))


interface ExportedSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

const attribute = (span: ExportedSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

const startService = async (env: Record<string, string>) => {
  const port = await freePort()
  const child = spawn(process.execPath, ["app/main.ts"], { cwd: root, env: { ...process.env, ...env, PORT: String(port) } })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  for (let i = 0; i < 240 && !output.includes("paygate is listening"); i++) await sleep(250)
  return { child, port, exited, output: () => output }
}

describe("OpenTelemetry tracing", () => {
  let dir: string
  let collector: Server
  let collectorPort: number
  const received: Array<{ path: string; resource: unknown; spans: Array<ExportedSpan> }> = []
  let service: ChildProcess | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "paygate-tracing-"))
    await copyMigratedDatabase(join(dir, "pglite"))
    collector = createHttpServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => (body += chunk))
      request.on("end", () => {
        const json = JSON.parse(body)
        for (const resourceSpans of json.resourceSpans ?? []) {
          received.push({
            path: request.url ?? "",
            resource: resourceSpans.resource,
            spans: (resourceSpans.scopeSpans ?? []).flatMap((scope: { spans: Array<ExportedSpan> }) => scope.spans)
          })
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()))
    collectorPort = (collector.address() as { port: number }).port
  })
  afterAll(async () => {
    if (service !== undefined && service.exitCode === null && service.signalCode === null) service.kill("SIGKILL")
    await new Promise((resolve) => collector.close(resolve))
    await rm(dir, { recursive: true, force: true })
  })

  it("exports spans for HTTP, SQL and the use cases when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    const started = await startService({
      PAYGATE_DATA_DIR: join(dir, "pglite"),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
      OTEL_SERVICE_NAME: "paygate-test"
    })
    service = started.child
    const output = started.output()
    const apiKey = /Api-Key\s+(sk_test_\S+)/.exec(output)?.[1]
    const merchantId = /Merchant-Id\s+(mer_\S+)/.exec(output)?.[1]
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const response = await fetch(`http://127.0.0.1:${started.port}/v1/merchant/payment`, {
      method: "POST",
      headers: {
        "api-key": apiKey!,
        "merchant-id": merchantId!,
        "content-type": "application/json",
        "idempotency-key": "traced-create",
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`
      },
      body: JSON.stringify({ amount: { unit: "iso4217/USD", value: "1050" }, referenceId: "traced" })
    })
    expect(response.status).toBe(200)
    service.kill("SIGTERM")
    await started.exited

    const spans = received.flatMap((batch) => batch.spans)
    expect(received.every((batch) => batch.path === "/v1/traces")).toBe(true)
    expect(JSON.stringify(received[0]?.resource)).toContain("paygate-test")
    const trace = spans.filter((span) => span.traceId === traceId)
    const server = trace.find((span) => span.kind === 2 && attribute(span, "http.route") === "/v1/merchant/payment")
    expect(server, `server span among ${trace.map((s) => s.name).join(", ")}`).toBeDefined()
    expect(server!.parentSpanId).toBe("00f067aa0ba902b7")
    const sql = trace.filter((span) => attribute(span, "db.query.text") !== undefined || attribute(span, "db.statement") !== undefined)
    expect(sql.some((span) => String(attribute(span, "db.query.text") ?? attribute(span, "db.statement")).includes("INSERT INTO payments"))).toBe(true)
    expect(trace.map((span) => span.name)).toEqual(
      expect.arrayContaining(["Payments.create", "Payments.validate", "SqlPaymentRepository.insert", "SqlIdempotencyStore.completingWrite"])
    )
  }, 90_000)

  it("exports nothing and starts no exporter without an endpoint", async () => {
    const before = received.length
    const started = await startService({ PAYGATE_DATA_DIR: join(dir, "pglite") })
    service = started.child
    expect((await fetch(`http://127.0.0.1:${started.port}/healthz`)).status).toBe(200)
    service.kill("SIGTERM")
    await started.exited
    expect(started.output()).not.toContain("Tracing: OTLP export enabled")
    expect(received.length).toBe(before)
  }, 90_000)
})
