/**
 * The default ports of `npm start`, when the user did not choose them: the API's 3000 and the local
 * chain's 8545. Taken by something else, the start moves on (the API to the next free port up to
 * 3010, the chain to one the OS picks) and says so in one line, so the quick start works on a busy
 * machine; every address it then prints is the one it uses. A port set explicitly (`PORT`,
 * `LOCAL_CHAIN_PORT`) is used as it is: taken, the start stops with one line (`Launch.ts`).
 *
 * Runs before anything reads the configuration: it sets the variables the configuration then reads.
 *
 * @module
 */
import { createServer } from "node:net"

const isFree = (port: number, host?: string) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, ...(host === undefined ? {} : { host }), exclusive: true }, () => server.close(() => resolve(true)))
  })

const unset = (name: string) => (process.env[name] ?? "").trim() === ""

/** See the module documentation; answers the lines to print. */
export const chooseDefaultPorts = async (): Promise<ReadonlyArray<string>> => {
  const said: Array<string> = []
  // Blank is unset (the configuration would refuse an empty port).
  for (const name of ["PORT", "LOCAL_CHAIN_PORT"]) if (unset(name)) delete process.env[name]
  if (unset("PORT") && !(await isFree(3000))) {
    for (let port = 3001; port <= 3010; port++) {
      if (await isFree(port)) {
        process.env.PORT = String(port)
        said.push(`paygate: port 3000 is in use, so the API listens on ${port} (set PORT to choose).`)
        break
      }
    }
  }
  if (unset("LOCAL_CHAIN_PORT") && unset("PAYGATE_CHAINS") && !(await isFree(8545, "127.0.0.1"))) {
    process.env.LOCAL_CHAIN_PORT = "0"
    said.push(`paygate: port 8545 is in use, so the local chain takes a free port (set LOCAL_CHAIN_PORT to choose).`)
  }
  return said
}
