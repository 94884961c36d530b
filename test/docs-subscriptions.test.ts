/**
 * The example of docs/subscriptions.md ("Try it on your machine"), run as written against `npm start`
 * with the values it printed: the settlement destination, the plan, and `npm run subscribe --follow`,
 * which must see every period charged and the subscription end completed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shellCommands } from "./support/DocCommands.ts"
import { localChainRpc, runBash, startedValues } from "./support/DocExample.ts"
import { type StartedService, startService } from "./support/NpmStart.ts"

const example = shellCommands("docs/subscriptions.md")

describe("docs/subscriptions.md's example against npm start", () => {
  let service: StartedService

  beforeAll(async () => {
    service = await startService()
  }, 180_000)
  afterAll(async () => {
    await service?.stop()
  })

  it("adds the destination, creates the plan, subscribes and follows three charges to the end", async () => {
    const env = startedValues(service)
    // The `--help` line is run with every other one by docs-commands.test.ts.
    const [exports, ...steps] = example.map((command) => command.text).filter((text) => !text.endsWith(" --help"))
    // The values the reader exports are exactly these.
    expect(exports!.split(/\s+/).slice(1).map((assignment) => assignment.split("=")[0]).sort()).toEqual(Object.keys(env).sort())
    expect(steps.map((step) => step.split(/\s/)[0])).toEqual(["curl", "PLAN_ID=$(curl", "npm"])

    // The local chain of this npm start may not be on the default port, as the page says.
    const rpcUrl = localChainRpc(service)
    const result = await runBash(steps.join("\n").replace("--follow", `--follow --rpc-url ${rpcUrl}`), env)
    expect(result.code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`).toBe(0)
    expect(result.stdout).toMatch(/Coffee club by .*: 2\.500000 TUSDC every 10 s, 3 periods/)
    expect(result.stdout).toMatch(/manage or cancel: http:\/\/.*\/s\/manage\/sub_/)
    expect(result.stdout.match(/period \d: succeeded 0x[0-9a-f]{64}/g)).toHaveLength(3)
    expect(result.stdout).toMatch(/ended \(completed\)/)
  }, 240_000)
})
