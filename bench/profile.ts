/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): self time by package and the hottest functions,
 * idle time left out. `npm run bench` uses it with `BENCH_PROFILE=1`; on its own:
 *
 *   node bench/profile.ts path/to/file.cpuprofile [top]
 */
import { readFileSync } from "node:fs"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Where a function's code comes from: an npm package, a workspace package, Node itself, or V8. */
export const origin = (frame: CallFrame): string => {
  const { functionName, url } = frame
  if (url === "") {
    if (functionName === "(garbage collector)") return "(garbage collector)"
    if (functionName === "(program)") return "(program: V8, native)"
    return functionName.startsWith("(") ? functionName : "(native)"
  }
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:dist\/)?(.*)$/.exec(url)
  if (modules !== null) {
    const [, pkg, rest] = modules
    // effect is one package but many subsystems: keep its file (effect/internal/effect, effect/Schema, effect/sql/Statement).
    if (pkg === "effect") return `effect/${rest!.replace(/\.js$/, "")}`
    return pkg!
  }
  const workspace = /\/packages\/([^/]+)\/src\/(.*)$/.exec(url)
  if (workspace !== null) return `@paygate/${workspace[1]}`
  return url.replace(/^file:\/\//, "")
}

/** Work that is not per-request CPU, kept apart so the shares below describe request handling. */
const isIdle = (frame: CallFrame) => frame.functionName === "(idle)"
// Socket writes to PostgreSQL and clients. Each wakes another process; on a busy machine the thread
// is often descheduled inside the call, so these samples are mostly time spent waiting for a CPU.
const isSocketWrite = (frame: CallFrame) => frame.url === "" && (frame.functionName === "writeBuffer" || frame.functionName === "writev")
const isStartup = (frame: CallFrame) => frame.url.startsWith("wasm:") || frame.url.startsWith("node:internal/modules")

/** Inclusive categories: a sample counts for each category with a frame anywhere on its stack. */
const categories: ReadonlyArray<readonly [string, (frame: CallFrame) => boolean]> = [
  ["schema (decode, encode)", (f) => /effect\/dist\/(Schema|SchemaParser|SchemaAST|SchemaTransformation|SchemaGetter|internal\/schema)/.test(f.url)],
  ["access log (Logger)", (f) => /effect\/dist\/Logger\.js/.test(f.url) || f.functionName === "consoleCall"],
  ["spans (tracer)", (f) => /effect\/dist\/internal\/tracer\.js/.test(f.url)],
  ["SQL statement compile", (f) => /effect\/dist\/sql\/Statement/.test(f.url)],
  ["connection pool", (f) => /effect\/dist\/Pool\.js/.test(f.url)],
  ["crypto (ids, digests)", (f) => /crypto/.test(f.url)],
  ["http-api (endpoint handling)", (f) => /effect\/dist\/http-api\//.test(f.url)],
  ["request metrics", (f) => /effect\/dist\/Metric\.js|server\/Metrics\.ts|observability\/Metrics\.ts/.test(f.url)],
  ["garbage collector", (f) => f.functionName === "(garbage collector)"]
]

export interface Summary {
  readonly totalMs: number
  readonly idleMs: number
  readonly socketWriteMs: number
  readonly startupMs: number
  /** On-CPU request work: not idle, not socket writes, not start-up. */
  readonly workMs: number
  readonly byOrigin: ReadonlyArray<readonly [string, number]>
  readonly byFunction: ReadonlyArray<readonly [string, number]>
  readonly byCategory: ReadonlyArray<readonly [string, number]>
}

/** Self time (ms) by origin and by function, and inclusive time by category, of the request work. */
export const summarise = (profile: Profile): Summary => {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  let total = 0
  let idle = 0
  let socketWrite = 0
  let startup = 0
  let work = 0
  const byOrigin = new Map<string, number>()
  const byFunction = new Map<string, number>()
  const byCategory = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros)
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!
    const micros = profile.timeDeltas[i] ?? 0
    const frame = nodes.get(id)!.callFrame
    total += micros
    if (isIdle(frame)) {
      idle += micros
      continue
    }
    if (isSocketWrite(frame)) {
      socketWrite += micros
      continue
    }
    const stack: Array<CallFrame> = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at)!.callFrame)
    if (stack.some(isStartup)) {
      startup += micros
      continue
    }
    work += micros
    add(byOrigin, origin(frame), micros)
    const file = frame.url.replace(/^.*\/(node_modules|packages)\//, "$1/")
    add(byFunction, `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`, micros)
    for (const [name, test] of categories) if (stack.some(test)) add(byCategory, name, micros)
  }
  const sorted = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000] as const)
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    socketWriteMs: socketWrite / 1000,
    startupMs: startup / 1000,
    workMs: work / 1000,
    byOrigin: sorted(byOrigin),
    byFunction: sorted(byFunction),
    byCategory: sorted(byCategory)
  }
}

/** The summary as text. */
export const render = (summary: Summary, top = 25) => {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
  const pct = (ms: number) => `${((100 * ms) / summary.workMs).toFixed(1).padStart(5)} %`
  const lines = [
    `profile: ${s(summary.totalMs)} sampled: ${s(summary.idleMs)} idle, ${s(summary.socketWriteMs)} in socket writes ` +
      `(mostly waiting for a CPU after waking PostgreSQL or a client), ${s(summary.startupMs)} start-up (module loading), ` +
      `${s(summary.workMs)} request work (100 % below)`,
    ``,
    `request work by category (inclusive: a frame of it anywhere on the stack):`,
    ...summary.byCategory.map(([name, ms]) => `  ${pct(ms)}  ${name}`),
    ``,
    `request work by origin (self time):`,
    ...summary.byOrigin.slice(0, top).map(([name, ms]) => `  ${pct(ms)}  ${name}`),
    ``,
    `hottest functions (self time):`,
    ...summary.byFunction.slice(0, top).map(([name, ms]) => `  ${pct(ms)}  ${name}`)
  ]
  return lines.join("\n")
}

/**
 * Named per-request figures of the service and of the floor as table rows (service, floor,
 * difference, name), the largest difference first.
 */
export const sideBySide = (
  service: Iterable<readonly [string, number]>,
  floor: Iterable<readonly [string, number]>,
  top: number,
  digits: number
) => {
  const rows = new Map<string, [number, number]>()
  for (const [name, value] of service) rows.set(name, [value, 0])
  for (const [name, value] of floor) rows.set(name, [rows.get(name)?.[0] ?? 0, value])
  const cell = (value: number) => value.toFixed(digits).padStart(7)
  return [...rows]
    .sort((a, b) => b[1][0] - b[1][1] - (a[1][0] - a[1][1]))
    .slice(0, top)
    .map(([name, [s, f]]) => `  ${cell(s)} ${cell(f)} ${cell(s - f)}  ${name}`)
}

/** A profile with the number of requests its process answered while profiled. */
export interface Profiled {
  readonly summary: Summary
  readonly requests: number
}

/**
 * The service against the floor in CPU microseconds per request: request work in all, then each
 * category, origin and function by how much more it costs the service (what the pipeline adds).
 */
export const renderComparison = (service: Profiled, floor: Profiled, top = 25) => {
  const perRequest = (ms: number, of: Profiled) => (1000 * ms) / of.requests
  const table = (key: "byCategory" | "byOrigin" | "byFunction", title: string) => [
    ``,
    `${title} (µs per request: service, floor, difference)`,
    ...sideBySide(
      service.summary[key].map(([name, ms]) => [name, perRequest(ms, service)] as const),
      floor.summary[key].map(([name, ms]) => [name, perRequest(ms, floor)] as const),
      top,
      1
    )
  ]
  const work = [perRequest(service.summary.workMs, service), perRequest(floor.summary.workMs, floor)] as const
  return [
    `request work, CPU µs per request: service ${work[0].toFixed(1)} (${service.requests} requests), ` +
      `floor ${work[1].toFixed(1)} (${floor.requests} requests): ${(work[0] / work[1]).toFixed(1)}×`,
    ...table("byCategory", "by category (inclusive)"),
    ...table("byOrigin", "by origin (self time)"),
    ...table("byFunction", "by function (self time)")
  ].join("\n")
}

if (import.meta.filename === process.argv[1]) {
  const file = process.argv[2]
  if (file === undefined) {
    process.stderr.write("usage: node bench/profile.ts file.cpuprofile [top]\n")
    process.exit(2)
  }
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile
  process.stdout.write(`${render(summarise(profile), Number(process.argv[3] ?? 25))}\n`)
}
