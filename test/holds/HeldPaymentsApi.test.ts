/**
 * Held payments end to end through the API, as a merchant backend and a buyer's wallet use them, on the
 * local chain with the worker in process: the buyer's authorization moves the funds into the escrow
 * (`authorized`), the merchant captures in parts to its settlement destination, voids, or lets the
 * deadline pass (the chain's clock moved with `evm_increaseTime`); the buyer reclaims on chain; a
 * capture racing the reclaim is decided by the chain, exactly one winning there and in the record.
 * Webhooks of each step go to a receiver.
 */
import { Chain, CredentialAdmin } from "@paygate/adapters"
import type { PartnerId } from "@paygate/domain"
import { Effect } from "effect"
import { createPublicClient, encodeFunctionData, type Hex, http } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ApiWorld, startApiWorld } from "../support/ApiWorld.ts"
import { eventually } from "../support/Eventually.ts"
import { newPermit2Payer, sendCall, type TestAccount } from "../support/Permit2Payer.ts"

const funder = Chain.anvilAccount(8)
const receiverAccount = Chain.anvilAccount(6)

let api: ApiWorld

beforeAll(async () => {
  api = await startApiWorld({
    config: { HOLD_POLL_MS: "100", HOLD_PENDING_RECHECK_MS: "200", HOLD_WAITING_RECHECK_MS: "300", HOLD_UNKNOWN_RECHECK_MS: "500" }
  })
  const destination = await partner("POST", `/v1/merchants/${api.world.merchantId}/settlements/crypto`, {
    settlements: [{ asset: api.usdc, destination: api.caip10(receiverAccount.address) }]
  })
  expect(destination.status, JSON.stringify(destination.body)).toBe(201)
  const hook = await partner("POST", "/v1/webhooks", { url: api.hooks.url("/holds") })
  expect(hook.status).toBe(201)
  api.hooks.expect("/holds", hook.body.secret)
}, 180_000)
afterAll(async () => {
  await api?.close()
})

const partner = (method: string, path: string, body?: unknown) => api.partner(method, path, body)
const merchant = (method: string, path: string, body?: unknown) => api.merchant(method, path, body)
const wallet = (method: string, path: string, body?: unknown) => api.wallet(method, path, body)
const caip10 = (address: string) => api.caip10(address)
const balanceOf = (address: string) => api.balanceOf(address)
const client = () => createPublicClient({ transport: http(api.world.chain.node.rpcUrl) })
const rpc = (method: string, params: ReadonlyArray<unknown>) => client().request({ method: method as never, params: params as never })

/** Polls the partner API's payment until `done` holds (at most `seconds`). */
const until = async (id: string, done: (payment: any) => boolean, seconds = 60) => {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const { body } = await partner("GET", `/v1/payments/${id}`)
    if (done(body)) return body
    if (Date.now() > deadline) throw new Error(`payment ${id} still ${JSON.stringify(body)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** A 10.00 USD held payment, paid by a fresh buyer's wallet and authorized (the escrow holds 10 TUSDC). */
const authorizedPayment = async (fields: Record<string, unknown> = {}) => {
  const created = await merchant("POST", "/v1/merchant/payment", {
    amount: { unit: "iso4217/USD", value: "1000" },
    referenceId: `held-${Math.random().toString(36).slice(2)}`,
    capture: "manual",
    ...fields
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const paymentId = created.body.paymentId as string
  const buyer = await newPermit2Payer(api.world.chain, funder, 25_000_000n)
  const options = await wallet("POST", `/v1/gateway/payment/${paymentId}/options`, { accounts: [caip10(buyer.address)], refresh: null })
  expect(options.status, JSON.stringify(options.body)).toBe(200)
  expect(options.body.options.map((o: any) => o.amount.unit), "only the token the escrow can hold").toEqual([`caip19/${api.usdc}`])
  const option = options.body.options[0]
  const typed = JSON.parse(option.actions.at(-1).data.params[1])
  expect(typed.primaryType).toBe("ReceiveWithAuthorization")
  const signature = await Chain.LocalWallet.signOption(option, buyer.privateKey)
  const confirmed = await wallet("POST", `/v1/gateway/payment/${paymentId}/confirm`, {
    optionId: option.id,
    results: [{ type: "walletRpc", data: [signature] }],
    collectedData: null
  })
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
  const payment = await until(paymentId, (p) => p.status === "authorized")
  return { paymentId, buyer, escrow: typed.message.to as string, payment }
}

// Events arrive in no guaranteed order: a payment's are put in the order of its stateVersion.
const versionOf = (e: any) => Number(e.data.payment.stateVersion)
const eventsOf = (paymentId: string) =>
  api.hooks.on("/holds").map((r) => r.envelope).filter((e: any) => e.data?.payment?.paymentId === paymentId)
    .sort((a: any, b: any) => versionOf(a) - versionOf(b))
const typesOf = (paymentId: string) => eventsOf(paymentId).map((e: any) => e.type)
// The events of the payment's latest state (one state change can emit more than one).
const latestTypesOf = (paymentId: string) => {
  const events = eventsOf(paymentId)
  return events.filter((e: any) => versionOf(e) === versionOf(events.at(-1))).map((e: any) => e.type)
}
// The escrow's terms as the record shows them, with the chain's executor as operator: what the buyer's `reclaim` names.
const termsOf = (payment: any, payer: TestAccount) => ({
  operator: api.world.chain.executorAddress,
  payer: payer.address,
  receiver: payment.hold.escrow.receiver as Hex,
  token: api.world.chain.contracts.usdc,
  authorizeBefore: BigInt(payment.hold.escrow.authorizeBefore),
  captureBefore: BigInt(payment.hold.captureBefore),
  refundBefore: BigInt(payment.hold.refundBefore),
  salt: payment.hold.escrow.salt as Hex
})

describe("Held payments through the API on the local chain", () => {
  it("the buyer's funds wait in the escrow; two captures pay the merchant's destination exactly the authorization", async () => {
    const before = await balanceOf(receiverAccount.address)
    const { buyer, escrow, payment, paymentId } = await authorizedPayment()
    expect(payment.hold).toMatchObject({ authorized: "10000000", captured: "0", released: null, voidAtDeadline: true })
    expect(payment.hold.captureBefore).toBe(payment.expiresAt + 7 * 86_400)
    expect(await balanceOf(escrow)).toBeGreaterThanOrEqual(10_000_000n)
    expect(await balanceOf(buyer.address)).toBe(15_000_000n)
    expect(await balanceOf(receiverAccount.address)).toBe(before)
    // The wallet sees its part done; the merchant sees the funds held.
    expect((await wallet("GET", `/v1/gateway/payment/${paymentId}/status`)).body).toMatchObject({ status: "succeeded", isFinal: true })
    expect((await merchant("GET", `/v1/merchant/payment/${paymentId}/status`)).body).toMatchObject({ status: "authorized", isFinal: false })

    const part = await merchant("POST", `/v1/merchant/payment/${paymentId}/capture`, { amount: { unit: "iso4217/USD", value: "400" } })
    expect(part.status, JSON.stringify(part.body)).toBe(200)
    expect(part.body.hold.operations).toMatchObject([{ kind: "capture", amount: "4000000", status: "pending" }])
    const captured = await until(paymentId, (p) => p.hold.captured === "4000000")
    expect(captured.status).toBe("authorized")
    expect(captured.hold.operations[0]).toMatchObject({ status: "succeeded", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(await balanceOf(receiverAccount.address)).toBe(before + 4_000_000n)

    const rest = await partner("POST", `/v1/payments/${paymentId}/capture`, {})
    expect(rest.status, JSON.stringify(rest.body)).toBe(200)
    const done = await until(paymentId, (p) => p.status === "succeeded")
    expect(done.hold).toMatchObject({ captured: "10000000", capturedAmount: { value: "1000" }, released: null })
    expect(await balanceOf(receiverAccount.address)).toBe(before + 10_000_000n)
    expect(await eventually(async () => typesOf(paymentId), (types) => types.length >= 5))
      .toEqual(["payment.created", "payment.processing", "payment.authorized", "payment.captured", "payment.succeeded"])
    // Refused once nothing is held.
    expect((await partner("POST", `/v1/payments/${paymentId}/capture`, {})).body.code).toBe("invalid_state")
    expect((await partner("POST", "/v1/refunds", { paymentId })).body.code).toBe("invalid_state")
  }, 120_000)

  it("a void gives everything back to the buyer; refusals name what is wrong", async () => {
    const { buyer, paymentId } = await authorizedPayment()
    const tooMuch = await partner("POST", `/v1/payments/${paymentId}/capture`, { amount: { unit: "iso4217/USD", value: "1001" } })
    expect(tooMuch).toMatchObject({ status: 400, body: { code: "params_validation" } })
    const otherCurrency = await partner("POST", `/v1/payments/${paymentId}/capture`, { amount: { unit: "iso4217/EUR", value: "1" } })
    expect(otherCurrency).toMatchObject({ status: 400, body: { code: "params_validation" } })
    const voided = await partner("POST", `/v1/payments/${paymentId}/void`)
    expect(voided.status, JSON.stringify(voided.body)).toBe(200)
    expect((await partner("POST", `/v1/payments/${paymentId}/void`)).body.code).toBe("invalid_state")
    const done = await until(paymentId, (p) => p.status === "voided")
    expect(done.hold.released).toBe("voided")
    expect(await balanceOf(buyer.address)).toBe(25_000_000n)
    await eventually(async () => typesOf(paymentId), (types) => types.includes("payment.voided"))
    expect((await wallet("GET", `/v1/gateway/payment/${paymentId}/status`)).body).toMatchObject({ status: "failed", isFinal: true })
  }, 120_000)

  it("another partner can neither see, capture nor void a held payment: 404 as for a missing one, and nothing is queued", async () => {
    const { paymentId } = await authorizedPayment()
    const other = await api.world.admin(Effect.gen(function*() {
      const admin = yield* CredentialAdmin
      const created = yield* admin.createPartner({ name: "Other Shop" })
      return (yield* admin.createApiKey({ kind: "partner", partnerId: created.id as PartnerId, mode: "sandbox" })).apiKey
    }))
    const asOther = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${api.world.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": other, ...headers },
        body: JSON.stringify({})
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    for (const action of ["capture", "void"]) {
      expect(await asOther(`/v1/payments/${paymentId}/${action}`)).toMatchObject({ status: 404, body: { code: "payment_not_found" } })
      expect(await asOther(`/v1/merchant/payment/${paymentId}/${action}`, { "merchant-id": api.world.merchantId }))
        .toMatchObject({ status: 404, body: { code: "merchant_not_found" } })
    }
    const payment = (await partner("GET", `/v1/payments/${paymentId}`)).body
    expect(payment.status).toBe("authorized")
    expect(payment.hold.operations).toEqual([])
    expect(await balanceOf(api.world.chain.contracts.paymentEscrow)).toBeGreaterThanOrEqual(10_000_000n)
  }, 120_000)

})

// These move the chain's clock past deadlines, which never comes back: their payments are all authorized first
// (a payment authorized later would find its authorization expired on chain), in the order of their deadlines.
describe("Held payments at their deadline, on the chain's clock", () => {
  type Authorized = Awaited<ReturnType<typeof authorizedPayment>>
  let voids: Authorized
  const races: Record<"capture" | "reclaim", Authorized> = {} as never

  beforeAll(async () => {
    voids = await authorizedPayment({ captureWindowSeconds: 10 })
    races.capture = await authorizedPayment({ captureWindowSeconds: 40, voidAtDeadline: false })
    races.reclaim = await authorizedPayment({ captureWindowSeconds: 70, voidAtDeadline: false })
  }, 120_000)

  // Mines one block stamped `timestamp` (the chain's clock only moves on).
  const mineAt = async (timestamp: number) => {
    await rpc("evm_setNextBlockTimestamp", [timestamp])
    await rpc("evm_mine", [])
  }

  it("at the capture deadline the worker voids what is still held", async () => {
    const { buyer, payment, paymentId } = voids
    await merchant("POST", `/v1/merchant/payment/${paymentId}/capture`, { amount: { unit: "iso4217/USD", value: "250" } })
    await until(paymentId, (p) => p.hold.captured === "2500000")
    await mineAt(payment.hold.captureBefore + 1)
    const done = await until(paymentId, (p) => p.status === "succeeded", 60)
    expect(done.hold).toMatchObject({ released: "voided", captured: "2500000" })
    expect(done.hold.operations.at(-1)).toMatchObject({ kind: "void", requestedBy: "deadline", status: "succeeded" })
    expect(await balanceOf(buyer.address)).toBe(25_000_000n - 2_500_000n)
  }, 120_000)

  for (const winner of ["capture", "reclaim"] as const) {
    it(`a capture racing the buyer's reclaim in one block: ${winner === "capture" ? "before" : "at"} the deadline the ${winner} wins, on chain and in the record`, async () => {
      const { buyer, escrow, payment, paymentId } = races[winner]
      const receivedBefore = await balanceOf(receiverAccount.address)
      await rpc("evm_setAutomine", [false])
      let reclaimed: Promise<{ readonly status: string; readonly blockNumber: bigint }> | undefined
      try {
        await merchant("POST", `/v1/merchant/payment/${paymentId}/capture`, {})
        // The worker's capture waits in the node's pool, unmined; the buyer's reclaim joins it.
        await until(paymentId, (p) => p.hold.operations[0]?.status === "submitted")
        const reclaim = encodeFunctionData({ abi: Chain.Contracts.PaymentEscrow.abi, functionName: "reclaim", args: [termsOf(payment, buyer)] })
        reclaimed = sendCall(api.world.chain.node.rpcUrl, buyer, escrow as Hex, reclaim)
        await new Promise((resolve) => setTimeout(resolve, 300))
        // Before the deadline only the capture can pass; at it, only the reclaim.
        await mineAt(winner === "capture" ? payment.hold.captureBefore - 1 : payment.hold.captureBefore)
      } finally {
        await rpc("evm_setAutomine", [true])
      }
      // Both were in that block: the buyer's reclaim went through exactly when the capture did not.
      const reclaim = await reclaimed!
      const captureTx = (await until(paymentId, (p) => p.hold.operations[0]?.txHash !== null)).hold.operations[0].txHash as Hex
      const capture = await client().getTransactionReceipt({ hash: captureTx })
      expect(reclaim.blockNumber).toBe(capture.blockNumber)
      expect([capture.status, reclaim.status]).toEqual(winner === "capture" ? ["success", "reverted"] : ["reverted", "success"])
      const done = await until(paymentId, (p) => p.isFinal, 60)
      if (winner === "capture") {
        expect(done.status).toBe("succeeded")
        expect(done.hold.captured).toBe("10000000")
        expect(await balanceOf(receiverAccount.address)).toBe(receivedBefore + 10_000_000n)
        expect(await balanceOf(buyer.address)).toBe(15_000_000n)
      } else {
        expect(done.status).toBe("reclaimed")
        expect(done.hold.operations[0]).toMatchObject({ kind: "capture", status: "failed" })
        expect(await balanceOf(receiverAccount.address)).toBe(receivedBefore)
        expect(await balanceOf(buyer.address)).toBe(25_000_000n)
      }
      await eventually(async () => latestTypesOf(paymentId), (types) => types.includes(winner === "capture" ? "payment.succeeded" : "payment.reclaimed"))
    }, 120_000)
  }
})
