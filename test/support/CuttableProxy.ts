/**
 * A TCP proxy in front of a server (e.g. anvil's JSON-RPC) that a test can cut and restore, to
 * play an RPC outage without stopping the server behind it.
 */
import { createServer, type Socket, connect } from "node:net"

/** A running proxy: `url` goes to the target while it is up. */
export interface CuttableProxy {
  readonly url: string
  /** Drops open connections and refuses new ones (they are closed at once). */
  readonly cut: () => void
  readonly restore: () => void
  /** From now on goes to `target` instead (open connections are dropped): a provider now serving another chain. */
  readonly retarget: (target: string) => void
  readonly close: () => Promise<void>
}

/** Starts a proxy on a free local port to `target` (`http://host:port`). */
export const startProxy = async (target: string): Promise<CuttableProxy> => {
  let { hostname, port } = new URL(target)
  const open = new Set<Socket>()
  let up = true
  const server = createServer((client) => {
    if (!up) return void client.destroy()
    const upstream = connect(Number(port), hostname)
    open.add(client).add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      open.delete(client)
      open.delete(upstream)
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream).pipe(client)
  })
  const dropOpen = () => {
    for (const socket of open) socket.destroy()
    open.clear()
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("proxy has no port")
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => {
      up = false
      dropOpen()
    },
    retarget: (next) => {
      ;({ hostname, port } = new URL(next))
      dropOpen()
    },
    restore: () => {
      up = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      })
  }
}
