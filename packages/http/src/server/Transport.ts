/**
 * The API's HTTP server, hardened where Node's defaults are loose:
 *
 * - explicit timeouts: a request's headers must arrive within {@link serverTimeouts}`.headersMs`
 *   and the whole request within `requestMs` (slow senders cannot hold a connection), and an idle
 *   kept-alive connection closes after `keepAliveMs`;
 * - at most `MAX_CONNECTIONS_PER_CLIENT` open connections per client address (an IPv6 client's
 *   /64); a connection over the cap is closed at once. Trusted proxies are not held to it: every
 *   client behind them shares their address;
 * - `Strict-Transport-Security` on every response to a request that came over TLS (a trusted proxy's
 *   `X-Forwarded-Proto`, server/ClientAddress.ts): a year, this host only.
 *
 * @module
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"
import { clientOf, parseAddress, throttleKey, type TrustedProxies } from "./ClientAddress.ts"

/** The server's timeouts, milliseconds. */
export const serverTimeouts = { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 5_000 } as const

/** The `Strict-Transport-Security` value sent over TLS. */
export const strictTransportSecurity = "max-age=31536000"

/** What {@link harden} needs. */
export interface TransportSettings {
  readonly trusted: TrustedProxies
  readonly maxConnectionsPerClient: number
}

/** Applies the module's rules to a Node HTTP server (before any other `request` listener is added). */
export const harden = (server: Server, settings: TransportSettings): void => {
  server.headersTimeout = serverTimeouts.headersMs
  server.requestTimeout = serverTimeouts.requestMs
  server.keepAliveTimeout = serverTimeouts.keepAliveMs

  const open = new Map<string, number>()
  // Connections from trusted proxies: only their requests can have come over TLS (the peer is parsed once per connection, not per request).
  const viaProxy = new WeakSet<Socket>()
  server.on("connection", (socket) => {
    const peer = socket.remoteAddress === undefined ? undefined : parseAddress(socket.remoteAddress)
    if (peer === undefined) return
    if (settings.trusted(peer)) {
      viaProxy.add(socket)
      return
    }
    const key = throttleKey(socket.remoteAddress!)
    const count = (open.get(key) ?? 0) + 1
    if (count > settings.maxConnectionsPerClient) {
      socket.destroy()
      return
    }
    open.set(key, count)
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1
      if (left <= 0) open.delete(key)
      else open.set(key, left)
    })
  })

  server.on("request", (request, response) => {
    if (
      viaProxy.has(request.socket) &&
      clientOf(settings.trusted, request.socket.remoteAddress, request.headers as Record<string, string | undefined>).overTls
    ) {
      response.setHeader("strict-transport-security", strictTransportSecurity)
    }
  })
}
