/**
 * Graceful shutdown, the part effect does not do by itself.
 *
 * On `SIGTERM` (or `SIGINT`) `NodeRuntime.runMain` interrupts the main fiber, and its scope closes in
 * reverse order of acquisition: the HTTP server stops listening at once (new connections are
 * refused) and waits, up to 20 seconds, for its open connections to end while in-flight requests
 * complete; then the database pool closes. What was missing: a keep-alive connection whose request
 * was in flight stayed open after its response, until the client or the 5 second keep-alive
 * timeout closed it, and held the exit back that long. Once {@link beginDraining} ran, every
 * response carries `Connection: close` (set by `server/RequestMiddleware.ts`), so each connection
 * closes right after its last response.
 *
 * `ApiServer.ts` calls {@link beginDraining} from a finalizer added after the server was built, so it
 * runs before the server's own (finalizers run in reverse order).
 *
 * @module
 */
import { Effect } from "effect"

let draining = false

/** Whether the process is shutting down. */
export const isDraining = () => draining

/** Marks the process as shutting down: from now on every response closes its connection. */
export const beginDraining = Effect.sync(() => {
  draining = true
}).pipe(Effect.andThen(Effect.logInfo("shutting down: no new connections; finishing in-flight requests, then closing the database pool")))
