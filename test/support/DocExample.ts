/**
 * Running a docs page's example as a reader would: its shell commands in one bash against `npm start`,
 * with the values `npm start` printed exported.
 */
import { spawn } from "node:child_process"
import { afterAll, beforeAll, expect } from "vitest"
import { shellCommands } from "./DocCommands.ts"
import { type StartedService, startService } from "./NpmStart.ts"
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

/** `npm start` for the file's tests (started before them, stopped after); answers the running service. */
export const useNpmStart = (): (() => StartedService) => {
  let service: StartedService | undefined
  beforeAll(async () => {
    service = await startService()
  }, 180_000)
  afterAll(async () => {
    await service?.stop()
  })
  return () => service!
}

/**
 * The commands of `page`'s example after its first, which must export exactly `env`'s names (the
 * values `npm start` printed); `--help` lines are left out (docs-commands.test.ts runs them).
 */
export const exampleSteps = (page: string, env: Record<string, string>): Array<string> => {
  const [exports, ...steps] = shellCommands(page).map((command) => command.text).filter((text) => !text.endsWith(" --help"))
  expect(exports!.split(/\s+/).slice(1).map((assignment) => assignment.split("=")[0]).sort()).toEqual(Object.keys(env).sort())
  return steps
}
