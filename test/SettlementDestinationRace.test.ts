/**
 * A settlement is decided from the merchant's destination as committed when the payment is locked,
 * on PostgreSQL: another connection holds the payment row while the decider is under way, and in
 * that same transaction the merchant changes the destination (to one usable only after its delay)
 * or removes it. The decider, once it has the payment, never pays the destination it could have
 * read before: a changed destination not usable yet leaves the payment undecided, a removed one
 * leaves the funds at the collection address.
 */
import { CryptoSettlement, type MerchantId, PayoutRepository, type PaymentId, SettlementDecisions, type SettlementId, SettlementRepository } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "./support/Eventually.ts"
import { databaseAt } from "./support/PostgresAdmin.ts"
import { postgres as onPostgres, type TestPartner, unique, useTestServer } from "./support/TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL!
const name = `paygate_settle_${randomBytes(5).toString("hex")}`
const usdc = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
const first = "eip155:1:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
const second = "eip155:1:0x90F79bf6EB2c4f870365E785982E1f101E93b906"
const hour = 3_600_000

describe("Settlement decisions read the destination inside the payment lock (PostgreSQL)", () => {
  const server = useTestServer(onPostgres(serverUrl, name))
  let blocker: postgres.Sql
  let partner: TestPartner

  beforeAll(async () => {
    blocker = postgres(databaseAt(serverUrl, name), { max: 2, onnotice: () => {} })
    partner = await server.partner()
  })

  afterAll(async () => {
    await blocker.end()
  })

  /** A succeeded payment in USDC of a new merchant, whose USDC destination is `first` (usable at once). */
  const paidWithDestination = async () => {
    const merchantId = (await server.merchant(partner.sandbox, unique("Settling Shop"))) as MerchantId
    const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as PaymentId
    await server.succeed(paymentId, { asset: usdc, tokenAmount: 12_500_000n })
    const id = `stl_${randomBytes(8).toString("hex")}` as SettlementId
    await server.run(SettlementRepository.use((repo) =>
      repo.insertAll([new CryptoSettlement({ id, merchantId, asset: usdc, destination: first, createdAt: 0, updatedAt: 0, usableFrom: 0 })], [])
    ))
    return { paymentId, id }
  }

  /**
   * Decides the pending settlements while another connection holds `paymentId`'s row: once the
   * decider waits for that lock, `change` runs in the holding transaction, which then commits.
   */
  const decideWhile = async (paymentId: PaymentId, change: (tx: postgres.TransactionSql) => Promise<unknown>) => {
    let decided: Promise<number> | undefined
    await blocker.begin(async (tx) => {
      await tx`SELECT id FROM payments WHERE id = ${paymentId} FOR UPDATE`
      decided = server.run(Effect.provide(SettlementDecisions.use((d) => d.decideNext(100)), SettlementDecisions.layer))
      await eventually(
        () => server.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ readonly waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`)),
        (rows) => rows[0]!.waiting > 0
      )
      await change(tx)
    })
    return await decided!
  }

  const settlementOf = (paymentId: PaymentId) =>
    server.run(PayoutRepository.use((repo) => repo.listByPayment(paymentId))).then((all) => all.filter((p) => p.kind === "settlement"))

  it("a destination changed (not usable yet) while the decider waits for the payment is not paid, nor the one it replaced", async () => {
    const { id, paymentId } = await paidWithDestination()
    await decideWhile(paymentId, (tx) => tx`UPDATE crypto_settlements SET destination = ${second}, usable_from = ${Date.now() + hour} WHERE id = ${id}`)
    expect(await settlementOf(paymentId)).toEqual([])
    const [row] = await blocker`SELECT settlement_decided FROM payments WHERE id = ${paymentId}`
    expect(row!.settlement_decided, "undecided until the new destination is usable").toBe(false)
  })

  it("a destination removed while the decider waits for the payment is not paid: the funds stay", async () => {
    const { id, paymentId } = await paidWithDestination()
    await decideWhile(paymentId, (tx) => tx`DELETE FROM crypto_settlements WHERE id = ${id}`)
    expect(await settlementOf(paymentId)).toEqual([])
    const [row] = await blocker`SELECT settlement_decided FROM payments WHERE id = ${paymentId}`
    expect(row!.settlement_decided, "decided: no destination, no settlement stage").toBe(true)
  })

  it("a destination changed to one usable at once is the one paid", async () => {
    const { id, paymentId } = await paidWithDestination()
    await decideWhile(paymentId, (tx) => tx`UPDATE crypto_settlements SET destination = ${second}, usable_from = 0 WHERE id = ${id}`)
    expect((await settlementOf(paymentId)).map((p) => [p.recipient, p.value])).toEqual([[second, 12_500_000n]])
  })
})
