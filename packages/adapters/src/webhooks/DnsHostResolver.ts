/**
 * `HostResolver` with the operating system's resolver (`dns.lookup`, as connections use it):
 * every A and AAAA address of a name, within a time limit.
 *
 * @module
 */
import { HostResolver, type ResolveFailure } from "@paygate/domain"
import { Effect, Layer } from "effect"
import { lookup } from "node:dns/promises"

/** How long a lookup may take. */
export const lookupTimeoutMs = 5_000

/** Every address `host` resolves to (the system resolver), or a failure. */
export const resolveAll = (host: string): Effect.Effect<ReadonlyArray<string>, ResolveFailure> =>
  Effect.tryPromise({
    try: () => lookup(host, { all: true, verbatim: true }),
    catch: (error): ResolveFailure => ({
      _tag: "ResolveFailure",
      message: `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? "lookup failed"}`
    })
  }).pipe(
    Effect.map((found) => found.map((entry) => entry.address)),
    Effect.timeoutOrElse({
      duration: lookupTimeoutMs,
      orElse: () => Effect.fail<ResolveFailure>({ _tag: "ResolveFailure", message: `cannot resolve ${host}: timed out` })
    })
  )

/** `HostResolver` over `dns.lookup`. */
export const layer: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, HostResolver.of({ resolve: resolveAll }))
