/**
 * Payout limits on a real anvil chain: a refund over `perRefund` and a settlement over `perPayout`
 * are not signed (nothing leaves the collection address, however long the worker runs) until a
 * team owner (API) or the operator (admin CLI) approves them; then each is paid once. A payout
 * that would bring the UTC day's total over `perDay` waits too, counted from what went through.
 * Only owners approve (the server refuses a viewer and a developer), two approvals at once are one
 * 200 and one 409, and approving what does not wait is `invalid_state`.
 */
import { Chain, GatewayServices, SqlPayoutWork } from "@paygate/adapters"
import { type PaymentId, PayoutRepository, PayoutWork } from "@paygate/domain"
import { type ErrorCode, statusOf } from "@paygate/http"
import { Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, expect, it } from "vitest"
import { parseAdminCommand } from "@paygate/cli"
import { payoutJobs } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { expectError } from "../support/ExpectError.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { forEachDatabase, type TestPartner, type TestResponse, unique, useTestServer } from "../support/TestServer.ts"

const { ChainConfig } = Chain

const world = localChainForFile()
const expectCode = (response: Parameters<typeof expectError>[0], code: ErrorCode) => expectError(response, statusOf(code), code)
const tusdc = (units: number) => BigInt(Math.round(units * 1_000_000))
const password = "correct horse battery staple"

/** The local chain's configuration with limits on its test token: 1 per refund, 2 per settlement, 5 a day. */
const limited = () => {
  const settings = world().settings()
  return {
    ...settings,
    chains: settings.chains.map((chain) => ({ ...chain, limits: { TUSDC: { perRefund: "1", perPayout: "2.00", perDay: "5" } } }))
  }
}

forEachDatabase("Payout limits on chain (anvil)", (database) => {
  const server = useTestServer(database, () => ({
    gateway: GatewayServices.settings({
      chains: Layer.orDie(ChainConfig.layer(limited())),
      secret: new Uint8Array(randomBytes(32))
    })
  }))
  let partner: TestPartner
  let settling: string
  let keeping: string
  let owner: (method: string, path: string) => Promise<TestResponse>
  const destination = privateKeyToAccount(generatePrivateKey()).address
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const caip10 = (address: string) => `${world().chain.chainId}:${address}`
  const freshAccount = () => privateKeyToAccount(generatePrivateKey()).address
  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const record = async (paymentId: string) => (await api("GET", `/v1/payments/${paymentId}`)).body
  const admin = (...argv: Array<string>) => server.admin(...argv)
  const payoutOf = async (paymentId: string, kind: "refund" | "settlement") =>
    Option.getOrThrow(await server.run(PayoutRepository.use((repo) => repo.find({ paymentId: paymentId as PaymentId, kind }))))

  /** A team member of `role`, signed in to the dashboard: sends with its cookie and CSRF token. */
  const member = async (role: string) => {
    const email = `${unique(role)}@example.com`
    const invited = await server.request("POST", "/v1/team/invitations", { apiKey: partner.sandbox, body: { email, role } })
    expect(invited.status, invited.text).toBe(201)
    const token = new URL(invited.body.url).hash.slice(1)
    const signedIn = await server.request("POST", "/dashboard/invitation", { body: { token, password } })
    expect(signedIn.status, signedIn.text).toBe(201)
    const cookie = `paygate_session=${/paygate_session=([^;]*)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1] ?? ""}`
    const send = (method: string, path: string) =>
      server.request(method, path, { body: {}, headers: { cookie, "csrf-token": signedIn.body.csrfToken as string } })
    return { email, send }
  }

  /** A succeeded payment (written directly) paid by `payer` with `tokenAmount` TUSDC. */
  const paid = async (merchantId: string, payer: string, tokenAmount: bigint) => {
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
    await server.succeed(paymentId, { account: caip10(payer), asset: world().chain.usdcAssetId, tokenAmount })
    return paymentId
  }

  /** Several rounds of the worker (polling every 50 ms) pass, and the payout is still unsigned. */
  const staysUnsigned = async (paymentId: string, kind: "refund" | "settlement") => {
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await payoutOf(paymentId, kind)).toMatchObject({ status: "pending", transfer: null, approvedAt: null })
    // Not retried in a loop: the queue does not hand it out at all, even with no lease on it.
    await server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE payouts SET lease_until = NULL, due_at = NULL WHERE payment_id = ${paymentId}`))
    const claimed = await server.run(Effect.provide(PayoutWork.use((work) => work.claim(1_000, 1)), SqlPayoutWork.layer))
    expect(claimed.filter((key) => key.paymentId === paymentId)).toEqual([])
  }

  beforeAll(async () => {
    jobs.push(await server.run(Effect.forkDetach(Layer.launch(payoutJobs()))))
    partner = await server.partner()
    settling = await server.merchant(partner.sandbox, "Settling Shop")
    keeping = await server.merchant(partner.sandbox, "Keeping Shop")
    const registered = await api("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: caip10(destination) }]
    })
    expect(registered.status).toBe(201)
    owner = (await member("owner")).send
  }, 120_000)

  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  it("a refund within the limits is paid without asking anyone", async () => {
    const payer = freshAccount()
    const paymentId = await paid(keeping, payer, tusdc(0.5))
    expect((await api("POST", "/v1/refunds", { paymentId })).status).toBe(201)
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund.waitingFor).toBeUndefined()
    expect(await world().balanceOf(payer)).toBe(tusdc(0.5))
  })

  it("a refund over perRefund waits unsigned, says why, is refused to a viewer and a developer, and is paid once after an owner approves", async () => {
    const payer = freshAccount()
    const paymentId = await paid(keeping, payer, tusdc(1.5))
    const collected = await world().balanceOf(world().chain.collectionAddress)
    expect((await api("POST", "/v1/refunds", { paymentId })).status).toBe(201)
    const waiting = await eventually(() => record(paymentId), (r) => r.refund?.waitingFor === "approval")
    expect(waiting.refund).toMatchObject({ status: "pending", txHash: null, approvalReason: "refund of 1.50 TUSDC — over the 1.00 TUSDC per-refund limit" })
    await staysUnsigned(paymentId, "refund")
    expect(await world().balanceOf(payer)).toBe(0n)
    expect(await world().balanceOf(world().chain.collectionAddress)).toBe(collected)

    for (const role of ["viewer", "developer", "operator"]) {
      const refused = await (await member(role)).send("POST", `/v1/payments/${paymentId}/refund/approve`)
      expect([refused.status, refused.body.code], role).toEqual([403, "forbidden"])
    }
    // The settlement of this payment does not wait: nothing to approve there.
    expectCode(await owner("POST", `/v1/payments/${paymentId}/settlement/approve`), "invalid_state")
    await staysUnsigned(paymentId, "refund")

    const approved = await owner("POST", `/v1/payments/${paymentId}/refund/approve`)
    expect(approved.status, approved.text).toBe(200)
    // Approved: it no longer waits for anyone (the worker sends it).
    expect(approved.body.refund.waitingFor).toBeUndefined()
    const refunded = await eventually(() => record(paymentId), (r) => r.refund?.status === "completed")
    expect(refunded.refund.waitingFor).toBeUndefined()
    expect(await world().balanceOf(payer)).toBe(tusdc(1.5))
    expect(await payoutOf(paymentId, "refund")).toMatchObject({ approvedBy: expect.stringMatching(/^member:owner.*@example\.com$/) })
    // Done: nothing waits any more.
    expectCode(await owner("POST", `/v1/payments/${paymentId}/refund/approve`), "invalid_state")
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await world().balanceOf(payer)).toBe(tusdc(1.5))
  })

  it("a settlement over perPayout waits until the operator approves it with the admin CLI, then is paid once", async () => {
    const before = await world().balanceOf(destination)
    const paymentId = await paid(settling, freshAccount(), tusdc(2.5))
    const waiting = await eventually(() => record(paymentId), (r) => r.settlement?.waitingFor === "approval")
    expect(waiting.settlement).toMatchObject({ status: "pending", txHash: null, approvalReason: "settlement of 2.50 TUSDC — over the 2.00 TUSDC per-payout limit" })
    await staysUnsigned(paymentId, "settlement")
    expect(await world().balanceOf(destination)).toBe(before)

    await expect(admin("payout", "approve", "--payment", paymentId, "--kind", "refund")).rejects.toThrow(/does not wait for approval/)
    expect(await admin("payout", "approve", "--payment", paymentId, "--kind", "settlement")).toEqual({
      paymentId,
      kind: "settlement",
      status: "pending",
      approved: [{ leg: 0, value: "2500000", reason: "settlement of 2.50 TUSDC — over the 2.00 TUSDC per-payout limit" }]
    })
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    expect(await world().balanceOf(destination)).toBe(before + tusdc(2.5))
    await expect(admin("payout", "approve", "--payment", paymentId, "--kind", "settlement")).rejects.toThrow(/does not wait for approval/)
    expect(() => parseAdminCommand(["payout", "approve", "--payment", paymentId, "--kind", "sweep"])).not.toThrow()
    expect(parseAdminCommand(["payout", "approve", "--payment", paymentId, "--kind", "sweep"])._tag).toBe("Invalid")
  })

  it("a payout within perPayout that would bring the day over perDay waits; two approvals at once are one 200 and one 409, and it is paid once", async () => {
    // Today so far: 0.50 + 1.50 + 2.50 = 4.50 of 5; this 1.00 makes 5.50.
    const before = await world().balanceOf(destination)
    const paymentId = await paid(settling, freshAccount(), tusdc(1))
    const waiting = await eventually(() => record(paymentId), (r) => r.settlement?.waitingFor === "approval")
    expect(waiting.settlement.approvalReason).toBe("settlement of 1.00 TUSDC — today's (UTC) payouts would reach 5.50 TUSDC, over the 5.00 TUSDC per-day limit")
    await staysUnsigned(paymentId, "settlement")
    expect(await world().balanceOf(destination)).toBe(before)

    const [first, second] = await Promise.all([
      owner("POST", `/v1/payments/${paymentId}/settlement/approve`),
      owner("POST", `/v1/payments/${paymentId}/settlement/approve`)
    ])
    expect([first.status, second.status].sort()).toEqual([200, 409])
    expect([first, second].find((r) => r.status === 409)!.body.code).toBe("invalid_state")
    await eventually(() => record(paymentId), (r) => r.settlement?.status === "completed")
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await world().balanceOf(destination)).toBe(before + tusdc(1))
  })

  it("every approval is in the partner's audit log, with who approved", async () => {
    const log = await api("GET", "/v1/audit-log")
    expect(log.status, log.text).toBe(200)
    const approvals = (log.body.data as Array<{ actor: string; action: string }>).filter((e) => e.action.startsWith("payments.approve"))
    expect(approvals.map((e) => [e.action, e.actor.replace(/^(member|key):.*/, "$1")]).sort()).toEqual([
      ["payments.approveRefund", "member"],
      ["payments.approveSettlement", "member"],
      ["payments.approveSettlement", "operator"]
    ].sort())
  })
})
