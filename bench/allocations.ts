/**
 * Summarises the allocation profiles `BENCH_ALLOC=1` records (`lib/AllocationSampling.ts`): bytes
 * allocated per request by the service and by the floor, in all and by allocating function.
 */
import { readFileSync } from "node:fs"
import { sideBySide } from "./profile.ts"

interface AllocationNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<AllocationNode>
}

/** Bytes allocated in all and by function (self), over the whole profile. */
export interface Allocations {
  readonly totalBytes: number
  readonly byFunction: ReadonlyMap<string, number>
}

/** Reads a profile written by `lib/AllocationSampling.ts`. */
export const readAllocations = (file: string): Allocations => {
  const byFunction = new Map<string, number>()
  let totalBytes = 0
  const walk = (node: AllocationNode) => {
    const { functionName, lineNumber, url } = node.callFrame
    const name = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules|packages)\//, "$1/")}:${lineNumber + 1}`
    totalBytes += node.selfSize
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child)
  }
  walk((JSON.parse(readFileSync(file, "utf8")) as { head: AllocationNode }).head)
  return { totalBytes, byFunction }
}

/** The service's and the floor's bytes per request, then the functions that allocate most more for the service. */
export const renderAllocations = (
  service: { readonly allocations: Allocations; readonly requests: number },
  floor: { readonly allocations: Allocations; readonly requests: number },
  survivorsOnly: boolean,
  top = 20
) => {
  const kb = (bytes: number, requests: number) => bytes / requests / 1024
  const perRequest = (of: { readonly allocations: Allocations; readonly requests: number }) =>
    [...of.allocations.byFunction].map(([name, bytes]) => [name, kb(bytes, of.requests)] as const)
  return [
    `allocated per request: service ${kb(service.allocations.totalBytes, service.requests).toFixed(1)} KiB, ` +
      `floor ${kb(floor.allocations.totalBytes, floor.requests).toFixed(1)} KiB ` +
      (survivorsOnly ? `(objects that outlived a young-generation collection)` : `(freed objects included)`),
    ``,
    `by function (KiB per request: service, floor, difference; "set" and "next" are Map copies)`,
    ...sideBySide(perRequest(service), perRequest(floor), top, 2)
  ].join("\n")
}
