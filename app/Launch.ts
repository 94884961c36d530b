/**
 * How the composition root's mains run: `Layer.launch` until SIGTERM/SIGINT; a failure (to start, or
 * later) is one clear line on stderr and exit code 1, never a stack trace. The causes a newcomer
 * meets get their remedy in that line: the API's port in use, the local chain's port in use, a
 * configuration value that does not parse.
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Configuration, FailureLine } from "@paygate/adapters"
import { Cause, Effect, Layer, Predicate } from "effect"

const { firstLine, messageOf } = FailureLine

/** The one line that says why the service stopped. */
export const describeFailure = (cause: Cause.Cause<unknown>, port: number): string => {
  const error = FailureLine.failureOf(cause)
  if (Predicate.isTagged(error, "ServeError") && /EADDRINUSE/.test(messageOf((error as { cause?: unknown }).cause))) {
    return `port ${port} is in use (is paygate already running?): stop what uses it, or start on another port with PORT=<port> npm start.`
  }
  if (Predicate.isTagged(error, "AnvilError") && / is in use/.test(messageOf(error))) {
    return `${messageOf(error)}: stop what uses it, or start with LOCAL_CHAIN_PORT=<port> (0 picks a free one).`
  }
  if (Predicate.isTagged(error, "ConfigError")) return `configuration: ${firstLine(messageOf(error))}.`
  return FailureLine.failureLine(cause)
}

/** Runs `layer` as the process's main; see the module documentation. */
export const launch = (layer: Layer.Layer<never, unknown>): void =>
  Layer.launch(layer).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.gen(function*() {
          const port = yield* Effect.orElseSucceed(Effect.gen(function*() {
            return yield* Configuration.port
          }), () => 3000)
          yield* Effect.sync(() => {
            process.stderr.write(`paygate: ${describeFailure(cause, port)}\n`)
            process.exitCode = 1
          })
        })
    ),
    NodeRuntime.runMain
  )
