/**
 * The operator's commands for what no partner owns: `receipt list` and `receipt refund` (unmatched
 * receipts of the collection addresses and of tokens the service does not accept), and
 * `deposit sweep` (any token at a deposit address), over the operator CLI's own parsing and runner.
 */
import { IdGenerator, NetworkModes, type PartnerId, Receipt, ReceiptStore } from "@paygate/domain"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { expect, it } from "vitest"
import { pglite, useTestServer } from "../../../test/support/TestServer.ts"
import { parseAdminCommand } from "../src/AdminCommand.ts"

const chainId = "eip155:31337"
const asset = `${chainId}/erc20:0x${"ab".repeat(20)}`
const depositAddress = `0x${"cd".repeat(20)}`

const server = useTestServer(pglite)

/** Records a receipt of 500 base units, unmatched unless it names a partner. */
const receipt = (owner: { readonly partnerId: PartnerId } | null) =>
  server.run(Effect.gen(function*() {
    const id = yield* (yield* IdGenerator).make("receipt")
    const recorded = new Receipt({
      id: id as Receipt["id"],
      chainId,
      asset,
      txHash: `0x${id.slice(4).toLowerCase().padEnd(64, "0")}`,
      logIndex: 0,
      blockNumber: 10,
      blockHash: `0x${"11".repeat(32)}`,
      blockTime: 1_700_000_000,
      from: `${chainId}:0x${"22".repeat(20)}`,
      value: 500n,
      reference: null,
      outcome: "unmatched",
      paymentId: null,
      partnerId: owner?.partnerId ?? null,
      mode: owner === null ? null : "sandbox",
      expectedValue: null,
      paymentStatus: null,
      recordedAt: Date.now(),
      refund: null,
      reversedAt: null
    })
    expect(yield* (yield* ReceiptStore).record(recorded, null, [], [], null)).toBe("recorded")
    return recorded.id
  }).pipe(Effect.provideService(NetworkModes, { modeOf: () => "sandbox" })))

it("receipt list and receipt refund: the operator's unmatched receipts, each refunded once; a partner's are not the operator's", async () => {
  const stray = await receipt(null)
  const partner = await server.partner()
  const owned = await receipt({ partnerId: partner.partnerId })
  const listed = await server.admin("receipt", "list") as ReadonlyArray<{ readonly receiptId: string }>
  expect(listed.map((r) => r.receiptId)).toEqual([stray])
  expect(await server.admin("receipt", "refund", "--receipt", stray)).toMatchObject({ receiptId: stray, refund: { status: "pending", value: "500" } })
  await expect(server.admin("receipt", "refund", "--receipt", stray)).rejects.toThrow("already refunded")
  await expect(server.admin("receipt", "refund", "--receipt", owned)).rejects.toThrow("No receipt with this id.")
  expect(parseAdminCommand(["receipt", "refund"])).toEqual({ _tag: "Invalid", message: "receipt refund needs --receipt." })
})

it("deposit sweep: any token at a known deposit address becomes due; anything else is refused", async () => {
  const partner = await server.partner()
  const merchantId = await server.merchant(partner.sandbox)
  const paymentId = (await server.payment(partner.sandbox, merchantId)).paymentId as string
  await server.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO deposit_addresses (chain_id, address, payment_id, created_at) VALUES (${chainId}, ${depositAddress}, ${paymentId}, 1)`
  }).pipe(Effect.orDie))
  const checksummed = `0x${"CD".repeat(20)}`
  expect(await server.admin("deposit", "sweep", "--chain", chainId, "--address", checksummed, "--asset", asset)).toEqual({
    chainId,
    address: depositAddress,
    asset,
    due: true
  })
  const due = await server.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly asset: string; readonly payment_id: string }>`SELECT asset, payment_id FROM deposit_sweeps
      WHERE address = ${depositAddress} AND marked_version > swept_version`
  }).pipe(Effect.orDie))
  expect(due).toEqual([{ asset, payment_id: paymentId }])
  await expect(server.admin("deposit", "sweep", "--chain", chainId, "--address", `0x${"ef".repeat(20)}`, "--asset", asset)).rejects.toThrow("No deposit address")
  for (const [chain, address, token] of [["eip155:1", depositAddress, asset], [chainId, "0x1234", asset], [chainId, depositAddress, "not-an-asset"]]) {
    await expect(server.admin("deposit", "sweep", "--chain", chain!, "--address", address!, "--asset", token!)).rejects.toThrow("--asset must be")
  }
  expect(parseAdminCommand(["deposit", "sweep", "--chain", chainId])).toEqual({
    _tag: "Invalid",
    message: "deposit sweep needs --chain, --address and --asset."
  })
})
