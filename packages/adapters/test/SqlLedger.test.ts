import { LedgerBalances, paidOutPostings, PaymentRepository, receivedPostings, Receipt, type ReceiptId, ReceiptRefund, ReceiptStore } from "@paygate/domain"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { post } from "../src/internal/LedgerWrites.ts"
import { adapterSuite } from "./support/AdapterSuite.ts"
import { newMerchant, newPartner, newPayment } from "./support/Fixtures.ts"

const asset = "eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
let counter = 0

const receiptOf = (paymentId: string | null, partnerId: string | null, value: bigint) =>
  new Receipt({
    id: `rcp_L${++counter}` as ReceiptId,
    chainId: "eip155:1",
    asset,
    txHash: `0x${counter.toString(16).padStart(64, "0")}`,
    logIndex: 0,
    blockNumber: 1,
    blockHash: "0x01",
    blockTime: 1,
    from: "eip155:1:0x00000000000000000000000000000000000000Ab",
    value,
    reference: null,
    outcome: paymentId === null ? "unmatched" : "paid",
    paymentId: paymentId as Receipt["paymentId"],
    partnerId: partnerId as Receipt["partnerId"],
    mode: paymentId === null ? null : "sandbox",
    expectedValue: paymentId === null ? null : value,
    paymentStatus: null,
    recordedAt: 0,
    refund: null,
    reversedAt: null
  })

adapterSuite("SqlLedger", (it) => {
  it.effect("the database refuses an unbalanced posting, one mixing modes, and any change to what was posted", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const collection = { kind: "collection" as const, asset }
      const claim = { kind: "unmatched" as const, asset, address: "0xab", partnerId: null }
      // Balanced: committed.
      yield* post(sql, "sandbox", "receipt", "rcp_ok", [{ account: collection, amount: 5n }, { account: claim, amount: -5n }]).pipe(sql.withTransaction)
      // Unbalanced: refused when its transaction commits, nothing of it kept.
      const unbalanced = yield* Effect.exit(
        post(sql, "sandbox", "receipt", "rcp_bad", [{ account: collection, amount: 5n }, { account: claim, amount: -4n }]).pipe(sql.withTransaction)
      )
      assert.strictEqual(unbalanced._tag, "Failure")
      assert.deepStrictEqual(yield* sql`SELECT id FROM ledger_transactions WHERE source_id = 'rcp_bad'`, [])
      // The same movement posted twice: refused.
      const twice = yield* Effect.exit(
        post(sql, "sandbox", "receipt", "rcp_ok", [{ account: collection, amount: 5n }, { account: claim, amount: -5n }]).pipe(sql.withTransaction)
      )
      assert.strictEqual(twice._tag, "Failure")
      // A live account in a sandbox transaction: refused by the composite keys.
      yield* post(sql, "live", "receipt", "rcp_live", [{ account: collection, amount: 3n }, { account: claim, amount: -3n }]).pipe(sql.withTransaction)
      const mixed = yield* Effect.exit(sql.unsafe(`INSERT INTO ledger_entries (transaction_id, account_id, mode, asset, amount)
        SELECT t.id, a.id, 'sandbox', a.asset, 1 FROM ledger_transactions t, ledger_accounts a
        WHERE t.source_id = 'rcp_ok' AND a.mode = 'live' LIMIT 1`).pipe(sql.withTransaction))
      assert.strictEqual(mixed._tag, "Failure")
      // Append-only.
      assert.strictEqual((yield* Effect.exit(sql`UPDATE ledger_entries SET amount = amount * 2`))._tag, "Failure")
      assert.strictEqual((yield* Effect.exit(sql`DELETE FROM ledger_entries`))._tag, "Failure")
      const balances = yield* sql<{ readonly mode: string; readonly balance: string }>`
        SELECT mode, balance::text AS balance FROM ledger_balances WHERE kind = 'collection' ORDER BY mode`
      assert.deepStrictEqual(balances.map((b) => [b.mode, b.balance]), [["live", "3"], ["sandbox", "5"]])
    }))

  it.effect("merchant balances are derived from the entries: credited on arrival, debited by a payout", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const partner = yield* newPartner()
      const merchant = yield* newMerchant(partner)
      const payment = yield* newPayment(merchant)
      yield* (yield* PaymentRepository).insert(payment, []).pipe(Effect.orDie)
      const ledger = yield* LedgerBalances
      // The suite's database is shared: what the collection account held before.
      const held = Effect.map(ledger.addressBalances("eip155:1"), (all) =>
        all.filter((a) => a.mode === "sandbox" && a.kind === "collection").reduce((sum, a) => sum + a.held, 0n))
      const before = yield* held
      const receipt = receiptOf(payment.id, partner.id, 100n)
      yield* post(sql, "sandbox", "receipt", receipt.id, receivedPostings(receipt, { kind: "collection" }, merchant.id)).pipe(sql.withTransaction)
      assert.deepStrictEqual(yield* ledger.merchantBalances(partner.id, "sandbox"), [{ merchantId: merchant.id, asset, owed: 100n }])
      assert.deepStrictEqual(yield* ledger.merchantBalances(partner.id, "live"), [])
      yield* post(sql, "sandbox", "payout", `${payment.id}:settlement:0`, paidOutPostings({ asset, value: 60n }, partner.id, merchant.id)).pipe(
        sql.withTransaction
      )
      assert.deepStrictEqual(yield* ledger.merchantBalances(partner.id, "sandbox"), [{ merchantId: merchant.id, asset, owed: 40n }])
      assert.strictEqual((yield* held) - before, 40n)
    }))

  it.effect("the audit names each receipt and refund the ledger disagrees with, and none it agrees with", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* ReceiptStore
      const ledger = yield* LedgerBalances
      const findingsOf = (id: string) => Effect.map(ledger.audit, (report) => report.findings.filter((f) => f.includes(`${id} `)))
      // Recorded as the service records it: posted, nothing found.
      const recorded = receiptOf(null, null, 7n)
      assert.strictEqual(yield* store.record(recorded, null, [], [], null), "recorded")
      assert.deepStrictEqual(yield* findingsOf(recorded.id), [])
      // A receipt row written without its posting (tokens arrived, nobody credited): found.
      const unposted = receiptOf(null, null, 9n)
      yield* sql`INSERT INTO chain_receipts (id, chain_id, tx_hash, log_index, asset, block_number, block_hash, block_time, sender, value, outcome, recorded_at)
        VALUES (${unposted.id}, 'eip155:1', ${unposted.txHash}, 0, ${asset}, 1, '0x01', 1, 'eip155:1:0xab', 9, 'unmatched', 0)`
      assert.deepStrictEqual(yield* findingsOf(unposted.id), [`receipt ${unposted.id} brought 9 of ${asset}; the ledger holds nothing`])
      // Removed by a reorganisation without its posting undone: found.
      yield* sql`UPDATE chain_receipts SET reversed_at = 5 WHERE id = ${recorded.id}`
      assert.deepStrictEqual(yield* findingsOf(recorded.id), [`receipt ${recorded.id} was removed by a reorganisation but its arrival stands`])
      // Removed, and undone as the service undoes it: nothing found.
      const reversed = receiptOf(null, null, 13n)
      assert.strictEqual(yield* store.record(reversed, null, [], [], null), "recorded")
      assert.strictEqual(yield* store.reverse(reversed.id, 5, null, []), "recorded")
      assert.deepStrictEqual(yield* findingsOf(reversed.id), [])
      // A refund completed without the funds leaving the collection address in the ledger: found.
      const refunded = receiptOf(null, null, 11n)
      assert.strictEqual(yield* store.record(refunded, null, [], [], null), "recorded")
      const refund = new ReceiptRefund({ status: "completed", value: 11n, requestedBy: null, transfer: null, attempts: 0, version: 1, requestedAt: 0, updatedAt: 0 })
      yield* sql`UPDATE chain_receipts SET refund = ${JSON.stringify({ ...refund, value: "11" })}::jsonb WHERE id = ${refunded.id}`
      assert.deepStrictEqual(yield* findingsOf(refunded.id), [`refund of receipt ${refunded.id} is completed for 11; the ledger moved nothing out of the collection address`])
      const report = yield* ledger.audit
      assert.isAtLeast(report.checked.receipts, 3)
      assert.isAtLeast(report.checked.transactions, 1)
    }))
})
