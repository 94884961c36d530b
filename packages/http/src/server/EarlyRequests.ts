/**
 * The HTTP server listens as soon as its layer is built, but the app's `request` handler is attached
 * only once the routes are built; Node drops a `request` event that has no listener, so a request
 * arriving in between (a readiness probe during start-up) would never be answered. This server
 * holds such requests and hands them to the app's handler as soon as it is attached.
 *
 * @module
 */
import { createServer as createNodeServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/** A Node HTTP server that keeps requests arriving before any handler for the first one attached. */
export const createServer = (): Server => {
  const server = createNodeServer()
  const held: Array<readonly [IncomingMessage, ServerResponse]> = []
  // Registered first, so it runs before the app's handler; it only acts while it is alone.
  server.on("request", (request, response) => {
    if (server.listenerCount("request") === 1) held.push([request, response])
  })
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
