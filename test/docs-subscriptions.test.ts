/**
 * The example of docs/subscriptions.md ("Try it on your machine"), run as written against `npm start`
 * with the values it printed: the settlement destination, the plan, and `npm run subscribe --follow`,
 * which must see every period charged and the subscription end completed.
 */
import { describe, expect, it } from "vitest"
import { exampleSteps, localChainRpc, runBash, startedValues, useNpmStart } from "./support/DocExample.ts"

describe("docs/subscriptions.md's example against npm start", () => {
  const started = useNpmStart()

  it("adds the destination, creates the plan, subscribes and follows three charges to the end", async () => {
    const service = started()
    const env = startedValues(service)
    const steps = exampleSteps("docs/subscriptions.md", env)
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
