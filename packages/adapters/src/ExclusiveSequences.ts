/**
 * Makes pglite-socket's multiplexing safe at message-sequence boundaries.
 *
 * PGlite is one PostgreSQL session; pglite-socket's server shares it among its clients message by
 * message, keeping one client's messages together only while the session is inside an explicit
 * transaction block (`db.isInTransaction()`). An extended-query sequence (`Parse`, `Bind`,
 * `Describe`, `Execute`, `Close`, `Flush`, ... up to `Sync`) is not a transaction block, so
 * another client's messages could run between our `Bind` and `Execute` and replace the unnamed
 * portal. With this wrapper `isInTransaction()` also answers `true` while a sequence is open, so
 * the server's queue serves only that client until its `Sync` (or a simple `Query`) is done.
 *
 * @module
 */
import type { PGlite } from "@electric-sql/pglite"

// Frontend message types that open or continue an extended-query sequence.
const sequenceTypes = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]) // P B D E C H
// Frontend message types after which the backend is ready for any client again.
const boundaryTypes = new Set([0x53, 0x51]) // S (Sync), Q (Query)
const syncMessage = new Uint8Array([0x53, 0, 0, 0, 4])

/** Wraps `db` for `PGLiteSocketServer` so that extended-query sequences are never interleaved. */
export const exclusiveSequences = (db: PGlite): PGlite => {
  let open = false
  return new Proxy(db, {
    get(target, property) {
      if (property === "isInTransaction") return () => open || target.isInTransaction()
      if (property === "execProtocolRawStream") {
        return async (message: Uint8Array, options: Parameters<PGlite["execProtocolRawStream"]>[1]) => {
          const type = message[0] ?? 0
          if (sequenceTypes.has(type)) open = true
          try {
            return await target.execProtocolRawStream(message, options)
          } finally {
            if (boundaryTypes.has(type)) open = false
          }
        }
      }
      if (property === "exec") {
        // The server rolls back for a client that left; end that client's sequence first.
        return async (...args: Parameters<PGlite["exec"]>) => {
          if (open) {
            await target.execProtocolRawStream(syncMessage, { onRawData: () => {} })
            open = false
          }
          return target.exec(...args)
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })
}
