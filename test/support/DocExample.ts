/**
 * Running a docs page's example as a reader would: its shell commands in one bash against `npm start`,
 * with the values `npm start` printed exported.
 */
import { spawn } from "node:child_process"
import type { StartedService } from "./NpmStart.ts"
import { repoRoot } from "./ServiceProcess.ts"

/** What a bash run printed, and how it exited. */
export interface BashRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `script` in one bash (`-e`: the first failing command stops it), in the repository, with `env` exported. */
export const runBash = (script: string, env: Record<string, string>) =>
  new Promise<BashRun>((resolve) => {
    const child = spawn("bash", ["-e", "-c", script], { cwd: repoRoot, env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The values a reader exports from what `npm start` printed. */
export const startedValues = (service: StartedService) => ({
  PAYGATE_URL: service.url,
  API_KEY: service.apiKey,
  MERCHANT_ID: service.merchantId,
  APP_ID: service.appId
})

/** The local chain this `npm start` printed (it may not be on the default port: another test's may hold it). */
export const localChainRpc = (service: StartedService): string => {
  const rpcUrl = /Local chain \S+ at (\S+):/.exec(service.output())?.[1]
  if (rpcUrl === undefined) throw new Error(`npm start printed no local chain:\n${service.output()}`)
  return rpcUrl
}
