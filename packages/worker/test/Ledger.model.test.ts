/**
 * The ledger against the chain, model-based (fast-check commands) on anvil and the embedded
 * database: random sequences of payments (pull with an authorization, push to a deposit address),
 * adversarial transfers (an authorization executed through a forwarder, one transaction paying two
 * deposit addresses, a duplicate, an unmatched transfer, a token nobody accepts), refunds,
 * settlements (a merchant with a settlement destination), sweeps, receipt refunds (an unmatched
 * transfer refunded by the operator, a late or overpaid one by its partner) and worker crashes
 * (the jobs interrupted with work in flight, then started again). After each
 * step, once the worker settled: every ledger transaction balances, the ledger equals the chain at
 * the collection and every deposit address, every unit that arrived is credited once or owed back
 * once, and no ledger transaction mixes modes. A second anvil, configured as a real network, carries
 * live payments (a live key's authorizations, unmatched transfers) beside the sandbox ones: each
 * chain's collection address equals its own mode's ledger, every account is of its chain's mode and
 * no account is shared across modes. Then the reconciliation job reports and alerts.
 */
import { Chain, GatewayServices, SqlDepositStore, SqlPersistence } from "@paygate/adapters"
import { ProcessMetrics } from "@paygate/observability"
import { LedgerBalances, ReceiptRefunds } from "@paygate/domain"
import { Effect, Fiber, Layer, Metric } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { type Address, createWalletClient, encodeFunctionData, erc20Abi, getAddress, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { executorJob, payoutJobs, sweepJob } from "../../../test/support/ChainJobs.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { reconcileChains } from "../../../test/support/LedgerAudit.ts"
import { localChainForFile } from "../../../test/support/LocalChainWorld.ts"
import { pglite, type Services, type TestPartner, useTestServer } from "../../../test/support/TestServer.ts"
import { sendTokenTransfer } from "../../../test/support/TokenTransfer.ts"
import { anvilRpc, watchedChainsOf, watcherJob } from "../../../test/support/WatcherJob.ts"
import { defaultWatcherSettings, LedgerReconciliationJob, LedgerReconciliationSettings, WatcherSettings } from "../src/index.ts"

const { anvilAccount, ChainConfig, Contracts, LocalWallet, TransferLogs } = Chain

const world = localChainForFile()
/** The live chain: its own chain id, declared a real network in the configuration. */
const liveWorld = localChainForFile({ chainId: 31_338 })
/** 12.50 USD in TUSDC base units (6 decimals, pegged 1:1). */
const amount = 12_500_000n
const buyer = anvilAccount(6)

const transferCall = (to: Address, value: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] })

/** A payment as the model's world knows it. */
interface Paid {
  readonly id: string
  readonly refundable: boolean
  readonly deposit: Address | null
}

describe("Ledger against the chain (anvil, PGlite)", () => {
  const server = useTestServer(pglite, () => ({
    gateway: GatewayServices.settings({ chains: Layer.orDie(ChainConfig.layer(bothChains())), secret: new Uint8Array(randomBytes(32)) })
  }))
  let chains: Chain.ChainConfig.Chains
  let partner: TestPartner
  let walletKey: string
  let liveWalletKey: string
  let liveMerchant: string
  let holding: string
  let settling: string
  let forwarder: Address
  let batcher: Address
  let other: Address
  let jobs: Array<Fiber.Fiber<unknown, unknown>> = []
  const paid: Array<Paid> = []
  const deposits: Array<Address> = []

  /** Both chains' configuration: the sandbox one as it is, the live one as a real network. */
  function bothChains() {
    const [sandbox, live] = [world().settings(), liveWorld().settings()]
    return { chains: [...sandbox.chains, ...live.chains.map((c) => ({ ...c, testnet: false }))], assets: [...sandbox.assets, ...live.assets] }
  }
  const token = () => world().chain.contracts.usdc
  const collection = () => world().chain.collectionAddress
  const rpcUrl = () => world().chain.node.rpcUrl
  const launch = <E>(layer: Layer.Layer<never, E, Services>) => server.run(Effect.forkDetach(Layer.launch(layer)))
  const start = async () => {
    jobs = [
      await launch(payoutJobs()),
      await launch(watcherJob(chains)),
      await launch(sweepJob),
      await launch(executorJob)
    ]
  }
  const stop = async () => {
    for (const fiber of jobs) await Effect.runPromise(Fiber.interrupt(fiber))
    jobs = []
  }
  const api = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { apiKey: partner.sandbox, ...(body === undefined ? {} : { body }) })
  const gateway = (method: string, path: string, body: unknown) => server.request(method, path, { apiKey: walletKey, body })
  const query = <A extends object>(statement: string) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(Effect.orDie))

  const sendCall = async (index: number, to: Address, data: Hex): Promise<boolean> => {
    const wallet = createWalletClient({ account: privateKeyToAccount(anvilAccount(index).privateKey), transport: http(rpcUrl()) })
    const hash = await wallet.sendTransaction({ chain: null, to, data, gas: 500_000n })
    return (await world().client.waitForTransactionReceipt({ hash })).status === "success"
  }
  const deploy = async (data: Hex): Promise<Address> => {
    const wallet = createWalletClient({ account: privateKeyToAccount(anvilAccount(0).privateKey), transport: http(rpcUrl()) })
    const hash = await wallet.sendTransaction({ chain: null, data, gas: 3_000_000n })
    const receipt = await world().client.waitForTransactionReceipt({ hash })
    if (receipt.contractAddress == null) throw new Error("nothing deployed")
    return receipt.contractAddress
  }
  const balanceOf = (tokenAddress: Address, holder: Address) =>
    world().client.readContract({ address: tokenAddress, abi: erc20Abi, functionName: "balanceOf", args: [holder] })

  const payment = async (merchantId: string) => (await server.payment(partner.sandbox, merchantId)).paymentId as string
  const depositAddress = async (paymentId: string) => {
    const answer = await gateway("POST", `/v1/gateway/payment/${paymentId}/deposit`, {})
    expect(answer.status).toBe(200)
    const address = answer.body.options[0].address as Address
    deposits.push(address)
    return address
  }
  /** A pull payment confirmed with the buyer's authorization; answers its `transferWithAuthorization` calldata. */
  const confirmedPull = async (merchantId: string, live = false) => {
    const [key, wallet, chainId] = live
      ? [partner.live, liveWalletKey, liveWorld().chain.chainId]
      : [partner.sandbox, walletKey, world().chain.chainId]
    const paymentId = (await server.payment(key, merchantId)).paymentId as string
    const pay = (path: string, body: unknown) => server.request("POST", `/v1/gateway/payment/${paymentId}/${path}`, { apiKey: wallet, body })
    const options = await pay("options", { accounts: [`${chainId}:${buyer.address}`] })
    const option = options.body.options.find((o: any) => o.actions[0]?.data?.method === "eth_signTypedData_v4")
    const signature = await LocalWallet.signOption(option, buyer.privateKey)
    const confirmed = await pay("confirm", {
      optionId: option.id,
      results: [{ type: "walletRpc", data: [signature] }],
      collectedData: null
    })
    expect(confirmed.status).toBe(200)
    const m = JSON.parse(option.actions[0].data.params[1]).message
    const data = encodeFunctionData({
      abi: Contracts.TestUsdc.abi,
      functionName: "transferWithAuthorization",
      args: [m.from, m.to, BigInt(m.value), BigInt(m.validAfter), BigInt(m.validBefore), m.nonce, signature]
    })
    return { paymentId, data }
  }

  /** Ledger balance of the `kind` accounts of `asset` (and `address`) in `mode`, as posted (a debit positive). */
  const ledgerOf = async (kind: string, asset: string, address: string | null, mode = "sandbox") => {
    const rows = await query<{ readonly balance: string | null }>(
      `SELECT sum(balance)::text AS balance FROM ledger_balances WHERE kind = '${kind}' AND asset = '${asset}' AND mode = '${mode}'` +
        (address === null ? "" : ` AND address = '${address.toLowerCase()}'`)
    )
    return BigInt(rows[0]?.balance ?? "0")
  }

  /** Every invariant that does not hold, as one line each (none once the worker settled). */
  const violations = async (): Promise<ReadonlyArray<string>> => {
    const found: Array<string> = []
    const usdc = world().chain.usdcAssetId
    const otherAsset = `${world().chain.chainId}/erc20:${getAddress(other)}`
    // The watcher has read every block confirmed when this look began: what it records of a range (a deposit's
    // receipt, then its sweep marked due) is all committed before the cursor moves past the range.
    for (const chain of TransferLogs.watchedChains(chains)) {
      const head = await Effect.runPromise(Effect.orDie(TransferLogs.safeHead(chain)))
      const [cursor] = await query<{ readonly next_block: string }>(`SELECT next_block::text FROM chain_cursors WHERE chain_id = '${chain.chainId}'`)
      if (cursor === undefined || Number(cursor.next_block) <= head) found.push(`watcher behind on ${chain.chainId}: next block ${cursor?.next_block}, confirmed head ${head}`)
    }
    const busy = await query<{ readonly n: string }>(`SELECT (
        (SELECT count(*) FROM payouts WHERE status = 'pending') + (SELECT count(*) FROM payments WHERE status = 'processing') +
        (SELECT count(*) FROM deposit_sweeps WHERE marked_version > swept_version) +
        (SELECT count(*) FROM chain_receipts WHERE refund ->> 'status' = 'pending'))::text AS n`)
    if (busy[0]!.n !== "0") found.push(`worker busy: ${busy[0]!.n}`)
    for (const row of await query<{ readonly transaction_id: string }>(
      `SELECT transaction_id::text FROM ledger_entries GROUP BY transaction_id, asset HAVING sum(amount) <> 0`
    )) found.push(`ledger transaction ${row.transaction_id} does not balance`)
    for (const row of await query<{ readonly id: string }>(
      `SELECT DISTINCT t.id::text FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
        JOIN ledger_accounts a ON a.id = e.account_id WHERE a.mode <> t.mode OR e.mode <> t.mode`
    )) found.push(`ledger transaction ${row.id} mixes modes`)
    // Each account is of its chain's mode (a live receipt posted as sandbox would make a consistent but wrong account).
    const modeOf: Record<string, string> = { [world().chain.chainId]: "sandbox", [liveWorld().chain.chainId]: "live" }
    for (const row of await query<{ readonly id: string; readonly mode: string; readonly chain_id: string }>(
      `SELECT id::text, mode, chain_id FROM ledger_accounts`
    )) if (modeOf[row.chain_id] !== row.mode) found.push(`account ${row.id} on ${row.chain_id} is ${row.mode}`)
    for (const row of await query<{ readonly kind: string; readonly asset: string }>(
      `SELECT kind, asset FROM ledger_accounts GROUP BY kind, asset, address, partner_id, merchant_id HAVING count(DISTINCT mode) > 1`
    )) found.push(`a ${row.kind} account of ${row.asset} is shared across modes`)
    // The watcher read the chain from its start: the tokens minted to the collection address are in the ledger too.
    const heldAtCollection = await balanceOf(token(), collection())
    const ledgerCollection = await ledgerOf("collection", usdc, null)
    if (heldAtCollection !== ledgerCollection) found.push(`collection holds ${heldAtCollection}, the ledger says ${ledgerCollection}`)
    for (const address of deposits) {
      for (const [t, asset] of [[token(), usdc], [other, otherAsset]] as const) {
        const [onChain, inLedger] = [await balanceOf(t, address), await ledgerOf("deposit", asset, address)]
        if (onChain !== inLedger) found.push(`deposit ${address} holds ${onChain} of ${asset}, the ledger says ${inLedger}`)
      }
    }
    const liveCollection = liveWorld().chain.collectionAddress
    const [heldLive, ledgerLive] = [await liveWorld().balanceOf(liveCollection), await ledgerOf("collection", liveWorld().chain.usdcAssetId, null, "live")]
    if (heldLive !== ledgerLive) found.push(`live collection holds ${heldLive}, the live ledger says ${ledgerLive}`)
    const otherCollection = await ledgerOf("collection", otherAsset, null)
    const otherOnChain = await balanceOf(other, collection())
    if (otherOnChain !== otherCollection) found.push(`collection holds ${otherOnChain} of the other token, the ledger says ${otherCollection}`)
    // Every receipt posted once, its whole value credited to someone: the merchant, or owed back.
    for (const row of await query<{ readonly id: string; readonly posted: string }>(
      `SELECT r.id, count(t.id)::text AS posted FROM chain_receipts r
        LEFT JOIN ledger_transactions t ON t.source = 'receipt' AND t.source_id = r.id GROUP BY r.id HAVING count(t.id) <> 1`
    )) found.push(`receipt ${row.id} posted ${row.posted} times`)
    for (const row of await query<{ readonly id: string; readonly credited: string; readonly value: string }>(
      `SELECT r.id, (SELECT -sum(e.amount) FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
          WHERE e.transaction_id = t.id AND a.kind IN ('merchant', 'refund_claim', 'unmatched') AND a.asset = r.asset)::text AS credited,
          r.value::text AS value
        FROM chain_receipts r JOIN ledger_transactions t ON t.source = 'receipt' AND t.source_id = r.id`
    )) if (row.credited !== row.value) found.push(`receipt ${row.id} of ${row.value} credited ${row.credited}`)
    // Each payment credited once: a succeeded one its amount, any other nothing (whatever came later is owed back).
    for (const row of await query<{ readonly id: string; readonly status: string; readonly credited: string; readonly amount: string | null }>(
      `SELECT p.id, p.status, coalesce((SELECT -sum(e.amount) FROM chain_receipts r
          JOIN ledger_transactions t ON t.source = 'receipt' AND t.source_id = r.id
          JOIN ledger_entries e ON e.transaction_id = t.id JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'merchant'
          WHERE r.payment_id = p.id), 0)::text AS credited, p.commitment ->> 'tokenAmount' AS amount
        FROM payments p`
    )) {
      const expected = row.status === "succeeded" ? row.amount : "0"
      if (row.credited !== expected) found.push(`payment ${row.id} (${row.status}) credited ${row.credited}, expected ${expected}`)
    }
    // What merchants are owed: what their payments kept less what left as payouts.
    const owed = await query<{ readonly owed: string }>(`SELECT (
        coalesce((SELECT sum((commitment ->> 'tokenAmount')::numeric) FROM payments WHERE status = 'succeeded'), 0) -
        coalesce((SELECT sum(value) FROM payouts WHERE status = 'completed'), 0) +
        coalesce((SELECT sum(balance) FROM ledger_balances WHERE kind = 'merchant'), 0))::text AS owed`)
    if (owed[0]!.owed !== "0") found.push(`merchants' balances are off by ${owed[0]!.owed}`)
    return found
  }

  const settled = async () => {
    const last = await eventually(violations, (found) => found.length === 0, 90_000).catch(() => violations())
    expect(last).toEqual([])
  }

  beforeAll(async () => {
    chains = await Effect.runPromise(ChainConfig.decode(bothChains()))
    partner = await server.partner()
    walletKey = await server.walletKey("sandbox")
    liveWalletKey = await server.walletKey("live")
    liveMerchant = await server.merchant(partner.live, "Live")
    holding = await server.merchant(partner.sandbox, "Holding")
    settling = await server.merchant(partner.sandbox, "Settling")
    const registered = await api("POST", `/v1/merchants/${settling}/settlements/crypto`, {
      settlements: [{ asset: world().chain.usdcAssetId, destination: `${world().chain.chainId}:${anvilAccount(8).address}` }]
    })
    expect(registered.status).toBe(201)
    forwarder = await deploy(Contracts.TestForwarder.bytecode)
    batcher = await deploy(Contracts.TestMulticall.bytecode)
    other = await deploy(Contracts.TestUsdc.bytecode)
    await sendCall(0, other, encodeFunctionData({ abi: Contracts.TestUsdc.abi, functionName: "mint", args: [anvilAccount(4).address, 10n ** 12n] }))
    await start()
  }, 180_000)
  afterAll(stop)

  type Real = { readonly run: () => Promise<void> }
  const step = (name: string, run: () => Promise<void>) =>
    fc.constant<fc.AsyncCommand<object, Real>>({
      check: () => true,
      run: async (_, real) => {
        await real.run()
        await run()
        await settled()
      },
      toString: () => name
    })

  const merchantOf = (refundable: boolean) => (refundable ? holding : settling)

  const pull = fc.boolean().chain((refundable) =>
    step(`pay with an authorization (${refundable ? "holding" : "settling"})`, async () => {
      const { paymentId } = await confirmedPull(merchantOf(refundable))
      paid.push({ id: paymentId, refundable, deposit: null })
    })
  )
  const unmatched = fc.bigInt({ min: 1n, max: 5_000n }).chain((value) =>
    step(`an unmatched transfer of ${value} into the collection address`, async () => {
      await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(7).privateKey, token: token(), to: collection(), value })
    })
  )
  const livePull = step("live: pay with an authorization on the real network", async () => {
    const { paymentId } = await confirmedPull(liveMerchant, true)
    // Not vacuous: the live payment succeeds and its receipt is posted in the live ledger.
    await eventually(() => query<{ readonly mode: string }>(`SELECT t.mode FROM chain_receipts r
      JOIN ledger_transactions t ON t.source = 'receipt' AND t.source_id = r.id WHERE r.payment_id = '${paymentId}'`), (rows) => rows.length > 0, 60_000)
      .then((rows) => expect(rows.map((r) => r.mode)).toEqual(["live"]))
  })
  const liveUnmatched = fc.bigInt({ min: 1n, max: 5_000n }).chain((value) =>
    step(`live: an unmatched transfer of ${value} into the live collection address`, async () => {
      const live = liveWorld()
      await sendTokenTransfer({ rpcUrl: live.chain.node.rpcUrl, privateKey: anvilAccount(7).privateKey, token: live.chain.contracts.usdc, to: live.chain.collectionAddress, value })
    })
  )
  const crash = step("the worker crashes mid-flight and starts again", async () => {
    // Work under way when the jobs are interrupted: a push payment arriving and a refund asked for.
    const paymentId = await payment(holding)
    const address = await depositAddress(paymentId)
    await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(3).privateKey, token: token(), to: address, value: amount })
    paid.push({ id: paymentId, refundable: true, deposit: address })
    const target = paid.find((p) => p.refundable && p.id !== paymentId)
    if (target !== undefined) {
      paid.splice(paid.indexOf(target), 1)
      expect([201, 409]).toContain((await api("POST", "/v1/refunds", { paymentId: target.id })).status)
    }
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 300)))
    await stop()
    await start()
  })

  const payIntoDeposit = async (refundable: boolean) => {
    const paymentId = await payment(merchantOf(refundable))
    const address = await depositAddress(paymentId)
    await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(3).privateKey, token: token(), to: address, value: amount })
    paid.push({ id: paymentId, refundable, deposit: address })
  }

  const commands = [
    pull,
    unmatched,
    fc.boolean().chain((refundable) => step(`pay into a deposit address (${refundable ? "holding" : "settling"})`, () => payIntoDeposit(refundable))),
    step("the buyer executes the authorization through a forwarder, racing the executor", async () => {
      const { data, paymentId } = await confirmedPull(holding)
      await sendCall(5, forwarder, encodeFunctionData({ abi: Contracts.TestForwarder.abi, functionName: "forward", args: [token(), data] }))
      paid.push({ id: paymentId, refundable: true, deposit: null })
    }),
    step("one transaction pays two deposit addresses", async () => {
      const [a, b] = [await payment(holding), await payment(holding)]
      const [toA, toB] = [await depositAddress(a), await depositAddress(b)]
      await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(3).privateKey, token: token(), to: batcher, value: 2n * amount })
      await sendCall(4, batcher, encodeFunctionData({
        abi: Contracts.TestMulticall.abi,
        functionName: "aggregate",
        args: [[{ target: token(), data: transferCall(toA, amount) }, { target: token(), data: transferCall(toB, amount) }]]
      }))
      paid.push({ id: a, refundable: true, deposit: toA }, { id: b, refundable: true, deposit: toB })
    }),
    fc.integer({ min: 1, max: 3 }).chain((parts) =>
      step(`a duplicate of a paid deposit, in ${parts} part(s)`, async () => {
        const target = paid.find((p) => p.deposit !== null)
        if (target === undefined) return
        for (let i = 0; i < parts; i++) {
          await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(3).privateKey, token: token(), to: target.deposit!, value: amount / BigInt(parts) })
        }
      })
    ),
    step("a token nobody accepts reaches a deposit address, and the operator sweeps it", async () => {
      const address = await depositAddress(await payment(holding))
      await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(4).privateKey, token: other, to: address, value: 5_000n })
      const asset = `${world().chain.chainId}/erc20:${getAddress(other)}`
      await eventually(() => query<{ readonly id: string }>(`SELECT id FROM chain_receipts WHERE asset = '${asset}' AND sender ILIKE '%${anvilAccount(4).address.slice(2)}'`), (rows) => rows.length > 0)
      await eventually(() => server.run(SqlDepositStore.sweepOnRequest({ chainId: world().chain.chainId, address: address.toLowerCase(), asset })), (due) => due)
    }),
    step("a full refund of a payment", async () => {
      const target = paid.find((p) => p.refundable)
      if (target === undefined) return
      paid.splice(paid.indexOf(target), 1)
      const requested = await api("POST", "/v1/refunds", { paymentId: target.id })
      expect([201, 409]).toContain(requested.status)
    }),
    fc.bigInt({ min: 1n, max: 5_000n }).chain((value) =>
      step(`the operator refunds an unmatched transfer of ${value}`, async () => {
        await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(7).privateKey, token: token(), to: collection(), value })
        const [receipt] = await eventually(
          () => query<{ readonly id: string }>(`SELECT id FROM chain_receipts WHERE outcome = 'unmatched' AND partner_id IS NULL
            AND value = ${value} AND asset = '${world().chain.usdcAssetId}' AND refund IS NULL`),
          (rows) => rows.length > 0
        )
        await server.run(ReceiptRefunds.use((refunds) => refunds.requestAsOperator(receipt!.id)))
      })
    ),
    step("the partner refunds what a paid deposit address received late or beyond its amount", async () => {
      const [receipt] = await query<{ readonly id: string }>(`SELECT id FROM chain_receipts
        WHERE outcome IN ('overpaid', 'late') AND partner_id IS NOT NULL AND refund IS NULL LIMIT 1`)
      if (receipt === undefined) return
      expect((await api("POST", `/v1/receipts/${receipt.id}/refund`)).status).toBe(200)
    }),
    crash
  ]

  it("model: the ledger balances, equals the chain, and credits every unit once, whatever happens", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 6 }), (cmds) =>
        fc.asyncModelRun(() => ({ model: {}, real: { run: async () => {} } }), cmds)),
      { numRuns: 3, endOnFailure: true }
    )
  }, 600_000)

  it("modes: sandbox and live payments side by side never share an account, and each chain equals its mode's ledger", async () => {
    await fc.assert(
      // Every run pays and transfers on the live chain at least once, among random others, in a random order.
      fc.asyncProperty(
        fc.tuple(livePull, liveUnmatched, fc.array(fc.oneof(pull, unmatched, livePull, liveUnmatched, crash), { minLength: 1, maxLength: 3 }))
          .chain(([paying, transfer, rest]) => fc.shuffledSubarray([paying, transfer, ...rest], { minLength: rest.length + 2 })),
        (cmds) => fc.asyncModelRun(() => ({ model: {}, real: { run: async () => {} } }), cmds)
      ),
      { numRuns: 2, endOnFailure: true }
    )
  }, 600_000)

  it("reconciliation: the report shows each address, and a lasting difference alerts", async () => {
    const [watched] = TransferLogs.watchedChains(chains)
    // The random runs before may not have paid into any deposit address: this one does.
    await payIntoDeposit(true)
    await settled()
    // Reconciliation reads at the confirmed head, which may still be short of the blocks `settled` saw: the
    // ledger equals the chain there once it has caught up. The report checked is that run's, the latest recorded.
    const reconcileNow = () => server.run(reconcileChains(chains).pipe(Effect.provide(SqlPersistence.layer)))
    const lines = await eventually(reconcileNow, (ls) => ls.every((l) => l.chain === l.ledger), 60_000)
    for (const line of lines) expect([line.address, line.asset, line.chain - line.ledger]).toEqual([line.address, line.asset, 0n])
    expect(lines.filter((l) => l.kind === "deposit").length).toBeGreaterThan(0)
    const reported = await server.run(LedgerBalances.use((l) => l.latestReconciliation).pipe(Effect.provide(SqlPersistence.layer)))
    expect(reported.length).toBe(lines.length)
    // With the watcher stopped, one unit reaches a deposit address the ledger never hears of.
    await stop()
    const address = deposits[0]!
    await sendTokenTransfer({ rpcUrl: rpcUrl(), privateKey: anvilAccount(3).privateKey, token: token(), to: address, value: 1n })
    // Reconciliation reads at the confirmed head: mine past the confirmations so the transfer is under it.
    await anvilRpc(world(), "anvil_mine", [`0x${(watched!.requiredConfirmations + 1).toString(16)}`])
    const differing = (await reconcileNow()).filter((l) => l.chain !== l.ledger)
    expect(differing.map((l) => [l.address, l.chain - l.ledger])).toEqual([[address.toLowerCase(), 1n]])
    const gauge = ProcessMetrics.ledgerDifferences(world().chain.chainId)
    const job = await server.run(Effect.forkDetach(Layer.launch(LedgerReconciliationJob).pipe(
      Effect.provide(Layer.mergeAll(watchedChainsOf(chains), Layer.succeed(WatcherSettings, defaultWatcherSettings))),
      Effect.provide(SqlPersistence.layer),
      Effect.provideService(LedgerReconciliationSettings, { intervalMs: 50 })
    )))
    try {
      await eventually(() => Effect.runPromise(Metric.value(gauge)), (state) => state.value === 1, 30_000)
      const latest = await server.run(LedgerBalances.use((l) => l.latestReconciliation).pipe(Effect.provide(SqlPersistence.layer)))
      expect(latest.filter((l) => l.address === address.toLowerCase() && l.asset === world().chain.usdcAssetId).map((l) => l.chain - l.ledger)).toEqual([1n])
    } finally {
      await Effect.runPromise(Fiber.interrupt(job))
    }
  }, 120_000)
})
