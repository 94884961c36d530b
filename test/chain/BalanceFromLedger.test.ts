/**
 * `GET /v1/balance` reads what is held from the ledger (anvil, PGlite): after payments into deposit
 * addresses, a refund and a settlement, `held` is what the partner's merchant accounts hold in the
 * ledger's entries, per token; a payment recorded as succeeded without a transfer the ledger saw
 * holds nothing, and a payment of another partner is not counted. The `balances` export reads the
 * same entries: per merchant and token, what was owed before the period, what the period received,
 * settled and refunded, and what is owed at its end, that end's sum what `held` says.
 */
import { Chain, GatewayServices } from "@paygate/adapters"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { Address } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob, payoutJobs, sweepJob } from "../support/ChainJobs.ts"
import { eventually } from "../support/Eventually.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { pglite, type Services, type TestPartner, useTestServer } from "../support/TestServer.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { watcherJob } from "../support/WatcherJob.ts"

const { anvilAccount, ChainConfig } = Chain

const world = localChainForFile()
/** 12.50 USD in TUSDC base units (6 decimals, pegged 1:1). */
const amount = 12_500_000n

describe("The balance's held funds come from the ledger (anvil, PGlite)", () => {
  const server = useTestServer(pglite, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(world().settings())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let partner: TestPartner
  let other: TestPartner
  let walletKey: string
  const jobs: Array<Fiber.Fiber<unknown, unknown>> = []

  const launch = async <E>(layer: Layer.Layer<never, E, Services>) => {
    jobs.push(await server.run(Effect.forkDetach(Layer.launch(layer))))
  }
  beforeAll(async () => {
    const chains = await Effect.runPromise(ChainConfig.decode(world().settings()))
    partner = await server.partner()
    other = await server.partner()
    walletKey = await server.walletKey("sandbox")
    await launch(watcherJob(chains))
    await launch(payoutJobs())
    await launch(executorJob)
    await launch(sweepJob)
  }, 60_000)
  afterAll(async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
  })

  const usdc = () => world().chain.usdcAssetId
  const query = <A extends object>(statement: string) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(Effect.orDie))
  const status = async (apiKey: string, paymentId: string) =>
    (await server.request("GET", `/v1/payments/${paymentId}`, { apiKey })).body.status as string
  /** A payment of `merchantId`, paid in full into its deposit address; answers once it succeeded. */
  const paid = async (apiKey: string, merchantId: string) => {
    const { paymentId } = await server.payment(apiKey, merchantId)
    const answer = await server.request("POST", `/v1/gateway/payment/${paymentId}/deposit`, { apiKey: walletKey, body: {} })
    expect(answer.status).toBe(200)
    const to = answer.body.options[0].address as Address
    await sendTokenTransfer({ rpcUrl: world().chain.node.rpcUrl, privateKey: anvilAccount(3).privateKey, token: world().chain.contracts.usdc, to, value: amount })
    await eventually(() => status(apiKey, paymentId), (s) => s === "succeeded", 30_000)
    return paymentId as string
  }
  /** What the ledger's entries say `partnerId`'s merchants are owed in sandbox, per token. */
  const ledgerHeld = (partnerId: string) =>
    query<{ readonly asset: string; readonly value: string }>(`SELECT a.asset, (-sum(e.amount))::text AS value
      FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
      WHERE a.kind = 'merchant' AND a.mode = 'sandbox' AND a.partner_id = '${partnerId}'
      GROUP BY a.asset HAVING sum(e.amount) <> 0 ORDER BY a.asset`)
  const held = async (apiKey: string) => {
    const answer = await server.request("GET", "/v1/balance", { apiKey })
    expect(answer.status).toBe(200)
    return answer.body.held
  }
  const payouts = (paymentId: string) =>
    query<{ readonly status: string }>(`SELECT status FROM payouts WHERE payment_id = '${paymentId}'`)

  /** Two merchants of `apiKey`: one holding what it is paid, one settling it to anvil account 8. */
  const merchants = async (apiKey: string) => {
    const holding = await server.merchant(apiKey, "Holding")
    const settling = await server.merchant(apiKey, "Settling")
    const registered = await server.request("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      apiKey,
      body: { settlements: [{ asset: usdc(), destination: `${world().chain.chainId}:${anvilAccount(8).address}` }] }
    })
    expect(registered.status).toBe(201)
    return { holding, settling }
  }

  it("equals the merchant accounts' entries after payments, a refund and a settlement", async () => {
    const { holding, settling } = await merchants(partner.sandbox)

    const [kept, refunded] = [await paid(partner.sandbox, holding), await paid(partner.sandbox, holding)]
    const settled = await paid(partner.sandbox, settling)
    expect((await server.request("POST", "/v1/refunds", { apiKey: partner.sandbox, body: { paymentId: refunded } })).status).toBe(201)
    await eventually(() => payouts(refunded), (rows) => rows.length === 1 && rows[0]!.status === "completed", 60_000)
    await eventually(() => payouts(settled), (rows) => rows.length === 1 && rows[0]!.status === "completed", 60_000)
    expect((await payouts(kept)).length).toBe(0)
    // Recorded as succeeded without any transfer the ledger saw: no money is held for it.
    const unbacked = await server.payment(partner.sandbox, holding)
    await server.succeed(unbacked.paymentId, { asset: usdc(), tokenAmount: amount })
    // Another partner's payment is its own.
    await paid(other.sandbox, await server.merchant(other.sandbox))

    await eventually(() => ledgerHeld(partner.partnerId), (rows) => rows.length === 1 && rows[0]!.value === String(amount), 30_000)
    expect(await held(partner.sandbox)).toEqual([{ asset: usdc(), value: String(amount) }])
    expect(await held(partner.sandbox)).toEqual(await ledgerHeld(partner.partnerId))
    expect(await held(other.sandbox)).toEqual([{ asset: usdc(), value: String(amount) }])
    expect(await held(partner.live)).toEqual([])
  }, 180_000)

  it("the balances export: opening, the period's receipts, settlement and refund, closing; its closings sum to held", async () => {
    const mine = await server.partner()
    const { holding, settling } = await merchants(mine.sandbox)
    await paid(mine.sandbox, holding)
    // The period starts after the first payment: it is the opening balance.
    const from = new Date().toISOString()
    const refunded = await paid(mine.sandbox, holding)
    const settled = await paid(mine.sandbox, settling)
    expect((await server.request("POST", "/v1/refunds", { apiKey: mine.sandbox, body: { paymentId: refunded } })).status).toBe(201)
    await eventually(() => payouts(refunded), (rows) => rows.length === 1 && rows[0]!.status === "completed", 60_000)
    await eventually(() => payouts(settled), (rows) => rows.length === 1 && rows[0]!.status === "completed", 60_000)

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    const statement = async (apiKey: string, period: string) => {
      const response = await server.fetch(new Request(`http://paygate.test/v1/exports/balances?format=jsonl&${period}`, { headers: { "api-key": apiKey } }))
      expect(response.status).toBe(200)
      return (await response.text()).split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    }
    const rows = await statement(mine.sandbox, `from=${from}&to=${tomorrow}`)
    const row = (merchantId: string) => rows.find((r) => r.merchant_id === merchantId)
    const units = (value: bigint) => ({ whole: `${value < 0n ? "-" : ""}${(value < 0n ? -value : value) / 1_000_000n}.${String((value < 0n ? -value : value) % 1_000_000n).padStart(6, "0")}`, base: String(value) })
    const expectRow = (merchantId: string, figures: Record<string, bigint>) => {
      const r = row(merchantId)
      expect(r, merchantId).toMatchObject({ token_asset: usdc(), network: world().chain.chainId })
      for (const [name, value] of Object.entries(figures)) {
        expect([name, r[name], r[`${name}_base_units`]]).toEqual([name, units(value).whole, units(value).base])
      }
    }
    expect(rows).toHaveLength(2)
    expectRow(holding, { opening: amount, received: amount, reversed: 0n, settled: 0n, refunded: -amount, closing: amount })
    expectRow(settling, { opening: 0n, received: amount, reversed: 0n, settled: -amount, refunded: 0n, closing: 0n })
    // What is owed at the end of a period reaching now is what the balance holds.
    expect(await held(mine.sandbox)).toEqual([{ asset: usdc(), value: String(rows.reduce((sum, r) => sum + BigInt(r.closing_base_units), 0n)) }])
    // One merchant only; the live mode and a period before anything was paid hold nothing.
    expect((await statement(mine.sandbox, `from=${from}&to=${tomorrow}&merchantId=${settling}`)).map((r) => r.merchant_id)).toEqual([settling])
    expect(await statement(mine.live, `from=${from}&to=${tomorrow}`)).toEqual([])
    expect(await statement(mine.sandbox, "from=2020-01-01&to=2020-02-01")).toEqual([])
  }, 180_000)
})
