/**
 * A TCP port for a server a test starts itself. Picked at random below the OS's ephemeral range
 * (32768–60999 here): a port the OS hands out for a `port 0` bind (an anvil, the embedded
 * database's socket, any outgoing connection) can never be the one a test picked and has not bound
 * yet, which happened with ports probed by a `port 0` bind and released (EADDRINUSE a few times per
 * hundred runs). Free on every interface at the time of asking.
 */
import { createServer } from "node:net"

const low = 15_000
const high = 32_000

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)))
  })

/** See the module documentation. */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low))
    if (await isFree(port)) return port
  }
  throw new Error(`no free port between ${low} and ${high}`)
}
