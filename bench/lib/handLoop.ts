/** The hand-written drain loop (`webhookBaseline.ts`) as a child process of the webhook bench. */
import { type ChildProcess, spawn } from "node:child_process"
import { root } from "./processes.ts"

/** An endpoint as the loop is given it: one per partner, the secret in plaintext. */
export interface HandLoopEndpoint {
  readonly id: string
  readonly partnerId: string
  readonly url: string
  readonly secret: string
}

/** How the loop runs (`webhookBaseline.ts`: `LOOPS`, `BATCH`, `BY_ENDPOINT`). */
export interface HandLoopSettings {
  readonly loops: number
  readonly batch: number
  readonly byEndpoint: boolean
}

/** A running drainer, and its last output. */
export interface Drainer {
  readonly child: ChildProcess
  readonly output: () => string
}

/** Starts the loop on the database at `url`. */
export const startHandLoop = (url: string, endpoints: ReadonlyArray<HandLoopEndpoint>, settings: HandLoopSettings): Drainer => {
  let output = ""
  const child = spawn(process.execPath, ["bench/webhookBaseline.ts"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: url,
      ENDPOINTS: JSON.stringify(endpoints),
      LOOPS: String(settings.loops),
      BATCH: String(settings.batch),
      BY_ENDPOINT: settings.byEndpoint ? "1" : "0"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout?.on("data", (chunk) => (output = (output + chunk).slice(-5_000)))
  child.stderr?.on("data", (chunk) => (output = (output + chunk).slice(-5_000)))
  return { child, output: () => output }
}

/** Resolves once `child` has exited. */
export const exitOf = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
  })
