/**
 * The example of docs/held-payments.md ("Try it on your machine"), run as written against `npm start`:
 * the settlement destination, the held payment paid with `npm run pay`, a capture of part and a void of
 * the rest; then the status the page shows must follow (succeeded, 15.00 captured, the rest voided).
 */
import { describe, expect, it } from "vitest"
import { exampleSteps, localChainRpc, runBash, startedValues, useNpmStart } from "./support/DocExample.ts"

describe("docs/held-payments.md's example against npm start", () => {
  const started = useNpmStart()

  it("adds the destination, pays a held payment, captures part, voids the rest, and the status follows", async () => {
    const service = started()
    const env = startedValues(service)
    const steps = exampleSteps("docs/held-payments.md", env)
    const status = steps.pop()!
    expect(steps.map((step) => step.split(/\s/)[0])).toEqual(["curl", "PAYMENT_ID=$(curl", "npm", "curl", "curl"])

    const rpcUrl = localChainRpc(service)
    const script = [...steps.map((step) => (step.startsWith("npm run pay") ? `${step} --rpc-url ${rpcUrl}` : step)), "echo \"PAYMENT_ID=$PAYMENT_ID\""]
    const result = await runBash(script.join("\n"), env)
    expect(result.code, `exit ${result.code}\n${result.stdout}\n${result.stderr}`).toBe(0)
    expect(result.stdout).toMatch(/sign the ReceiveWithAuthorization typed data/)
    expect(result.stdout).toMatch(/"kind":"capture","amount":"15000000",.*?"status":"pending"/)
    const paymentId = /PAYMENT_ID=(pay_\w+)/.exec(result.stdout)![1]!

    const deadline = Date.now() + 60_000
    for (;;) {
      const shown = await runBash(status, { ...env, PAYMENT_ID: paymentId })
      const body = JSON.parse(shown.stdout)
      if (body.isFinal) {
        expect(body).toMatchObject({ status: "succeeded", hold: { captured: "15000000", capturedAmount: { value: "1500" }, released: "voided" } })
        break
      }
      if (Date.now() > deadline) throw new Error(`still ${shown.stdout}`)
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }, 240_000)
})
