/**
 * The HTTP server listens as soon as its layer is built, but the app's `request` handler is attached
 * only once the routes are built; Node drops a `request` event that has no listener, so a request
 * arriving in between (a readiness probe during start-up) would never get a response. This server
 * holds such requests and hands them to the app's handler as soon as it is attached.
 *
 * @module
 */
import { createServer as createNodeServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/**
 * A Node HTTP server that keeps requests arriving before any handler for the first one attached;
 * `prepare` runs first (its `request` listeners run before the app's).
 */
export const createServer = (prepare: (server: Server) => void = () => {}): Server => {
  const server = createNodeServer()
  prepare(server)
  const held: Array<readonly [IncomingMessage, ServerResponse]> = []
  // Registered before the app's handler; it only acts while no handler but the ones before it is attached.
  server.on("request", (request, response) => {
    if (server.listenerCount("request") === own) held.push([request, response])
  })
  const own = server.listenerCount("request")
  server.on("newListener", (event) => {
    // `newListener` fires before the listener is added: replay once it is in place.
    if (event === "request" && held.length > 0) {
      setImmediate(() => {
        for (const [request, response] of held.splice(0)) server.emit("request", request, response)
      })
    }
  })
  return server
}
