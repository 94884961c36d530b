/**
 * What a cluster run (`ClusterRun.ts`) must leave, read from the database, the chain and the
 * webhook receiver: one payment per key; one transfer on chain per accepted confirm; one payout
 * transfer per settlement and per refund; every outbox event delivered at least once, signed; no
 * 500 seen by the client; no key stuck after the lease; the ledger equal to the chain at every
 * collection and deposit address, and every ledger transaction balanced. Prints a summary line.
 */
import { Chain, Database } from "@paygate/adapters"
import { decodeFunctionData, type Hex, parseAbiItem } from "viem"
import { expect } from "vitest"
import { type ClusterRun, leaseMs } from "./ClusterRun.ts"
import { auditLedger } from "./LedgerAudit.ts"

const { anvilAccount } = Chain
const tokenAbi = Chain.Eip3009.eip3009TokenAbi
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")
const authorizationUsedEvent = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)")
const zeroAddress = "0x0000000000000000000000000000000000000000"

/** Checks what `run` left (see the module documentation). */
export const checkCluster = async (run: ClusterRun) => {
  const { chain, client, sql, orders, stats, kills, processes, partnerId, destination, last, firstBlock, outputs } = run
  const { startedAll, migratedBy, sandboxPartners, requestsMs, loadMs, convergeMs, startedAt } = run
  const r = run.receiver
  const w = run.world
  const chains = run.chains
  // ---- The database: one payment per key, the right statuses, one payout per settlement and refund.
  const payments = await sql<Array<{ id: string; reference_id: string; status: string; commitment: any; merchant_id: string }>>`
    SELECT id, reference_id, status, commitment, merchant_id FROM payments WHERE partner_id = ${partnerId}`
  const byReference = new Map<string, Array<(typeof payments)[number]>>()
  for (const p of payments) byReference.set(p.reference_id, [...(byReference.get(p.reference_id) ?? []), p])
  const duplicatePayments = orders.filter((o) => (byReference.get(o.referenceId)?.length ?? 0) > 1).length
  const lostPayments = orders.filter((o) => (byReference.get(o.referenceId)?.length ?? 0) === 0).length
  const wrongId = orders.filter((o) => byReference.get(o.referenceId)?.[0]?.id !== o.paymentId).length
  const payouts = await sql<Array<{ payment_id: string; kind: string; status: string; recipient: string; value: string; tx_hash: string | null; attempts: number }>>`
    SELECT payment_id, kind, status, recipient, value::text AS value, tx_hash, attempts FROM payouts`
  const refundRows = await sql<Array<{ payment_id: string; n: number }>>`SELECT payment_id, count(*)::int AS n FROM refunds GROUP BY payment_id`

  // ---- The chain: transfers in (one per confirm) and out (one per payout), executor transactions.
  const collection = chain.collectionAddress.toLowerCase()
  const transfers = await client.getLogs({ address: chain.contracts.usdc, event: transferEvent, fromBlock: 0n, toBlock: "latest" })
  const usedAuthorizations = await client.getLogs({ address: chain.contracts.usdc, event: authorizationUsedEvent, fromBlock: 0n, toBlock: "latest" })
  const inbound = transfers.filter((t) => t.args.to!.toLowerCase() === collection && t.args.from !== zeroAddress)
  const outbound = transfers.filter((t) => t.args.from!.toLowerCase() === collection)
  const latestBlock = await client.getBlockNumber()
  const executor = chain.executorAddress.toLowerCase()
  const executorTxs: Array<{ nonce: string; hash: Hex }> = []
  for (let n = firstBlock + 1n; n <= latestBlock; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true })
    for (const tx of block.transactions) {
      if (tx.from.toLowerCase() !== executor) continue
      const decoded = decodeFunctionData({ abi: tokenAbi, data: tx.input })
      executorTxs.push({ nonce: String((decoded.args as ReadonlyArray<unknown>)[5]).toLowerCase(), hash: tx.hash })
    }
  }
  const reverted = (await Promise.all(executorTxs.map((t) => client.getTransactionReceipt({ hash: t.hash })))).filter((x) => x.status !== "success").length

  const confirmedOrders = orders.filter((o) => o.confirmed === true)
  const paymentById = new Map(payments.map((p) => [p.id, p]))
  let transferDuplicates = 0
  let transferMissing = 0
  for (const o of confirmedOrders) {
    const p = paymentById.get(o.paymentId!)!
    const nonce = (p.commitment.authorization.nonce as string).toLowerCase()
    const payer = anvilAccount(o.payer).address.toLowerCase()
    const used = usedAuthorizations.filter((l) => l.args.nonce!.toLowerCase() === nonce && l.args.authorizer!.toLowerCase() === payer).length
    const moved = inbound.filter((t) => t.args.from!.toLowerCase() === payer && t.args.value === o.tokenAmount).length
    if (used > 1 || moved > 1) transferDuplicates++
    if (used === 0 || moved === 0) transferMissing++
  }
  const executorByNonce = new Map<string, number>()
  for (const t of executorTxs) executorByNonce.set(t.nonce, (executorByNonce.get(t.nonce) ?? 0) + 1)
  const executorRepeats = [...executorByNonce.values()].filter((n) => n > 1).length

  const expectedSettlements = confirmedOrders.filter((o) => o.shop === "settle")
  const expectedRefunds = confirmedOrders.filter((o) => o.refund)
  let payoutDuplicates = 0
  let payoutMissing = 0
  for (const [o, kind] of [...expectedSettlements.map((o) => [o, "settlement"] as const), ...expectedRefunds.map((o) => [o, "refund"] as const)]) {
    const rows = payouts.filter((x) => x.payment_id === o.paymentId && x.kind === kind)
    const completed = rows.filter((x) => x.status === "completed")
    const recipient = kind === "settlement" ? destination.toLowerCase() : anvilAccount(o.payer).address.toLowerCase()
    const moved = outbound.filter((t) => t.args.to!.toLowerCase() === recipient && t.args.value === o.tokenAmount).length
    if (completed.length > 1 || moved > 1) payoutDuplicates++
    if (completed.length === 0 || moved === 0) payoutMissing++
  }
  const refundDuplicates = refundRows.filter((x) => x.n > 1).length

  // ---- The webhooks: every outbox event of the partner delivered (signed) at least once.
  const events = await sql<Array<{ id: string; type: string }>>`SELECT id, type FROM outbox_events WHERE partner_id = ${partnerId}`
  const received = r.on("/hooks")
  const counts = new Map<string, number>()
  for (const x of received) counts.set(x.webhookId, (counts.get(x.webhookId) ?? 0) + 1)
  const undelivered = events.filter((e) => !counts.has(e.id)).length
  const deliveredTwice = [...counts.values()].filter((n) => n > 1).length
  const unverified = received.filter((x) => !x.verified).length
  const settledEvents = events.filter((e) => e.type === "payment.settled").length

  // How long chain work waited: confirm answered → payment.succeeded; payout created → completed.
  const succeededAt = new Map(
    (await sql<Array<{ payment_id: string; at: string }>>`
      SELECT payment_id, min(created_at)::text AS at FROM outbox_events WHERE partner_id = ${partnerId} AND type = 'payment.succeeded' GROUP BY payment_id`)
      .map((x) => [x.payment_id, Number(x.at)])
  )
  const chainWaits = confirmedOrders.map((o) => (succeededAt.get(o.paymentId!) ?? Date.now()) - o.confirmedAt!)
  const payoutWaits = (await sql<Array<{ ms: string }>>`SELECT (completed_at - created_at)::text AS ms FROM payouts WHERE completed_at IS NOT NULL`)
    .map((x) => Number(x.ms))
  const slow = (waits: ReadonlyArray<number>) => `${waits.filter((ms) => ms > 10_000).length} over 10 s, max ${Math.max(0, ...waits)} ms`
  const stuckKeys = [...stats.conflicts.entries()].filter(([, s]) => s.last - s.first > leaseMs + 3_000).length
  const errorLines = processes.flatMap((p) => p.instances.flatMap((x) => x.output().split("\n").filter((l) => /"level":"(ERROR|FATAL)"/.test(l))))
  console.log(
    `cluster (2 API + 2 workers, started together in ${startedAll} ms, migrated by ${migratedBy.join(",")}, ${sandboxPartners} sandbox partner(s) bootstrapped): ` +
      `${orders.length} orders, ${confirmedOrders.length} confirms, ${expectedSettlements.length} settlements, ${expectedRefunds.length} refunds ` +
      `(each answered 201 with its refund); ${stats.requests} requests in ${requestsMs} ms (load ${loadMs} ms); ` +
      `kills ${kills.map((k) => `${k.name} (back in ${k.back - k.at} ms)`).join(", ")}; retries ${stats.retries} ` +
      `(${stats.connectionFailures} no answer, ${stats.inFlightConflicts} in-flight 409 on ${stats.conflicts.size} keys, ${stats.rateLimited} 429); ` +
      `stuck keys ${stuckKeys}; duplicates: payments ${duplicatePayments}, transfers ${transferDuplicates}, payouts ${payoutDuplicates}, refunds ${refundDuplicates}; ` +
      `missing: payments ${lostPayments}, transfers ${transferMissing}, payouts ${payoutMissing}, webhooks ${undelivered}; ` +
      `executor txs ${executorTxs.length} (${reverted} reverted, ${executorRepeats} authorizations sent twice); ` +
      `webhooks ${events.length} events, ${received.length} deliveries, ${deliveredTwice} delivered twice, ${unverified} unverified; ` +
      `confirm → succeeded ${slow(chainWaits)}; payout → completed ${slow(payoutWaits)}; ` +
      `500s ${stats.status500}; converged ${convergeMs} ms after the load; error log lines ${errorLines.length}; total ${Date.now() - startedAt} ms`
  )
  if (errorLines.length > 0) console.log(`error log lines (first 5):\n${errorLines.slice(0, 5).join("\n")}`)

  // What a payment left processing went through, from every process's whole output.
  const stuck = last.processing === 0 ? "" : (await sql<Array<{ id: string; commitment: unknown; chain_due_at: string | null; chain_lease_until: string | null }>>`
    SELECT id, commitment, chain_due_at::text, chain_lease_until::text FROM payments WHERE status = 'processing'`)
    .map((p) => [
      `${p.id}: due ${p.chain_due_at}, leased until ${p.chain_lease_until} (now ${Date.now()}), commitment ${JSON.stringify(p.commitment)}`,
      ...processes.flatMap((x) => x.instances.flatMap((i, n) => i.output().split("\n").filter((l) => l.includes(p.id)).map((l) => `${x.name} #${n + 1}: ${l}`)))
    ].join("\n")).join("\n")
  expect(last, `did not converge\n${stuck}\n${outputs()}`).toMatchObject({ processing: 0, unexpired: 0, undecided: 0, pending_payouts: 0, unprocessed: 0, pending_deliveries: 0 })
  // api-1 and worker-1, killed together (once, or every few minutes in a soak).
  expect(kills.length % 2 === 0 && kills.length > 0).toBe(true)
  // The kill cut requests in flight (or refused them): the client had to retry.
  expect(stats.connectionFailures).toBeGreaterThan(0)
  expect(stats.status500, stats.unexpected.join("\n")).toBe(0)
  expect(stuckKeys).toBe(0)
  expect({ duplicatePayments, lostPayments, wrongId }).toEqual({ duplicatePayments: 0, lostPayments: 0, wrongId: 0 })
  expect(payments.length).toBe(orders.length)
  const unpaid = run.expiring ? "expired" : "requires_action"
  for (const o of orders) expect(paymentById.get(o.paymentId!)?.status, `order ${o.i}`).toBe(o.pay ? "succeeded" : unpaid)
  expect({ transferDuplicates, transferMissing }).toEqual({ transferDuplicates: 0, transferMissing: 0 })
  expect(inbound.length).toBe(confirmedOrders.length)
  expect(usedAuthorizations.length).toBe(confirmedOrders.length)
  expect({ payoutDuplicates, payoutMissing, refundDuplicates }).toEqual({ payoutDuplicates: 0, payoutMissing: 0, refundDuplicates: 0 })
  expect(outbound.length).toBe(expectedSettlements.length + expectedRefunds.length)
  expect(payouts.filter((x) => x.status !== "completed")).toEqual([])
  expect(payouts.length).toBe(expectedSettlements.length + expectedRefunds.length)
  expect(refundRows.length).toBe(expectedRefunds.length)
  expect(settledEvents).toBe(expectedSettlements.length)
  expect(undelivered).toBe(0)
  expect(unverified).toBe(0)
  // created each; processing and succeeded each paid; settled each settlement; refunded each refund;
  // expired each unpaid when the run expires them; and the settling shop's destination, added once.
  const expired = run.expiring ? orders.length - confirmedOrders.length : 0
  expect(events.filter((e) => e.type === "settlement_destination.changed").length).toBe(1)
  expect(events.filter((e) => e.type === "payment.expired").length).toBe(expired)
  expect(events.length).toBe(orders.length + 2 * confirmedOrders.length + expectedSettlements.length + expectedRefunds.length + expired + 1)
  expect(stats.unexpected).toEqual([])

  // ---- The ledger after the faults: it equals the chain at every collection and deposit address, and balances.
  const audit = await auditLedger(Database.layerUrl(w.url, { maxConnections: 2 }), JSON.parse(chains))
  if (audit.differing.length > 0) console.log(await watcherState(run, inbound.map((t) => ({ txHash: t.transactionHash, block: t.blockNumber }))))
  expect(audit).toEqual({ compared: audit.compared, differing: [], unbalanced: [] })
  expect(audit.compared).toBeGreaterThan(0)
}

/** Why the ledger trails the chain: the watcher's cursor against the head, and the inbound transfers it has no receipt of. */
const watcherState = async (run: ClusterRun, inbound: ReadonlyArray<{ readonly txHash: Hex; readonly block: bigint }>) => {
  const cursors = await run.sql<Array<Record<string, unknown>>>`SELECT chain_id, next_block::text, holder, lease_until::text FROM chain_cursors`
  const recorded = new Set((await run.sql<Array<{ tx_hash: string }>>`SELECT tx_hash FROM chain_receipts`).map((r) => r.tx_hash))
  const unrecorded = inbound.filter((t) => !recorded.has(t.txHash.toLowerCase()))
  const head = await run.client.getBlockNumber({ cacheTime: 0 })
  return `ledger audit: head ${head}, now ${Date.now()}, cursors ${JSON.stringify(cursors)}; ${unrecorded.length} inbound transfer(s) without a receipt` +
    (unrecorded.length === 0 ? "" : `, in blocks ${unrecorded.map((t) => t.block).join(", ")}`)
}
