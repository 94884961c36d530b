/**
 * Subscriptions end to end through the API, as a merchant backend and a buyer's wallet use it, on the
 * local chain with the worker in process: a plan, the buyer's offer, permit and subscription, every
 * period charged on chain by the subscription contract, the webhooks of each step (signed, to a
 * receiver), and cancellations by the merchant and through the payer's manage link, closed in the
 * contract too. Periods are 8 seconds long (sandbox plans may be that short).
 */
import { Chain } from "@paygate/adapters"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newPermit2Payer, type TestAccount } from "../support/Permit2Payer.ts"
import { type ApiWorld, startApiWorld } from "../support/ApiWorld.ts"

const period = 8
const fee = 1_500_000n
const funder = Chain.anvilAccount(8)
const receiverAccount = Chain.anvilAccount(7)

let api: ApiWorld

beforeAll(async () => {
  api = await startApiWorld()
}, 180_000)
afterAll(async () => {
  await api?.close()
})

const partner = (method: string, path: string, body?: unknown) => api.partner(method, path, body)
const wallet = (method: string, path: string, body?: unknown) => api.wallet(method, path, body)
const usdc = () => api.usdc
const caip10 = (address: string) => api.caip10(address)
const balanceOf = (address: string) => api.balanceOf(address)

/** Polls the partner API's subscription until `done` holds (at most `seconds`). */
const until = async (id: string, done: (subscription: any) => boolean, seconds = 60) => {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const { body } = await partner("GET", `/v1/subscriptions/${id}`)
    if (done(body)) return body
    if (Date.now() > deadline) throw new Error(`subscription ${id} still ${JSON.stringify(body)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** The payer's wallet: asks for an offer, signs its permit as `eth_signTypedData_v4` would, subscribes. */
const subscribe = async (planId: string, payer: TestAccount) => {
  const offer = await wallet("POST", `/v1/gateway/plan/${planId}/offer`, { payer: caip10(payer.address) })
  expect(offer.status, JSON.stringify(offer.body)).toBe(200)
  const signature = await Chain.LocalWallet.signTypedDataJson(payer.privateKey, offer.body.typedData)
  const subscribed = await wallet("POST", `/v1/gateway/plan/${planId}/subscribe`, { offer: offer.body.offer, signature })
  expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200)
  return { offer: offer.body, signature, ...subscribed.body as { subscription: any; manageUrl: string } }
}

describe("Subscriptions through the API on the local chain", () => {
  let planId: string

  beforeAll(async () => {
    const destination = await partner("POST", `/v1/merchants/${api.world.merchantId}/settlements/crypto`, {
      settlements: [{ asset: usdc(), destination: caip10(receiverAccount.address) }]
    })
    expect(destination.status, JSON.stringify(destination.body)).toBe(201)
    const hook = await partner("POST", "/v1/webhooks", { url: api.hooks.url("/subscriptions") })
    expect(hook.status).toBe(201)
    api.hooks.expect("/subscriptions", hook.body.secret)
    const plan = await partner("POST", "/v1/plans", {
      merchantId: api.world.merchantId,
      name: "Coffee club",
      amount: { unit: `caip19/${usdc()}`, value: fee.toString() },
      periodSeconds: period,
      periods: 3
    })
    expect(plan.status, JSON.stringify(plan.body)).toBe(201)
    expect(plan.body).toMatchObject({ name: "Coffee club", periodSeconds: period, periods: 3, trialSeconds: 0, active: true })
    expect(plan.body.url).toBe(`${api.world.baseUrl}/s/${plan.body.planId}`)
    expect(plan.body.amount).toMatchObject({ unit: `caip19/${usdc()}`, value: "1500000", display: { assetSymbol: "TUSDC" } })
    planId = plan.body.planId
  }, 60_000)

  it("the buyer sees the plan, signs once, and every period is charged on chain, with a webhook each", async () => {
    const checkout = await wallet("GET", `/v1/gateway/plan/${planId}`)
    expect(checkout.status).toBe(200)
    expect(checkout.body).toMatchObject({ name: "Coffee club", merchant: { name: "Corner Coffee" }, active: true })
    expect(checkout.body.assets.map((a: any) => a.asset)).toEqual([usdc()])

    const payer = await newPermit2Payer(api.world.chain, funder, 10n * fee)
    const before = await balanceOf(receiverAccount.address)
    const { manageUrl, subscription } = await subscribe(planId, payer)
    expect(subscription).toMatchObject({ status: "subscribing", amountPerPeriod: "1500000", periods: 3, receiver: caip10(receiverAccount.address) })
    expect(manageUrl).toMatch(new RegExp(`^${api.world.baseUrl}/s/manage/${subscription.id}#sub1\\.`))

    const ended = await until(subscription.id, (s) => s.status === "ended", 90)
    expect(ended.endedReason, JSON.stringify(ended.charges)).toBe("completed")
    expect(ended.subscribeTx).toMatch(/^0x[0-9a-f]{64}$/)
    expect(ended.charges.map((c: any) => [c.periodIndex, c.status, c.amount]), JSON.stringify(ended.charges)).toEqual([
      [0, "succeeded", "1500000"],
      [1, "succeeded", "1500000"],
      [2, "succeeded", "1500000"]
    ])
    expect(await balanceOf(receiverAccount.address) - before).toBe(3n * fee)
    expect(await balanceOf(payer.address)).toBe(7n * fee)

    // Every step's webhook, signed; the charges carry their transactions.
    const mine = () => api.hooks.on("/subscriptions").filter((r) => r.envelope.data.subscription?.id === subscription.id)
    const deadline = Date.now() + 20_000
    while (mine().length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    const received = mine()
    expect(received.every((r) => r.verified)).toBe(true)
    expect(received.map((r) => r.envelope.type).sort()).toEqual([
      "subscription.activated",
      "subscription.charged",
      "subscription.charged",
      "subscription.charged",
      "subscription.ended"
    ])
    const charged = received.filter((r) => r.envelope.type === "subscription.charged").map((r) => r.envelope.data.charge)
    expect(charged.map((c: any) => c.periodIndex).sort()).toEqual([0, 1, 2])
    expect(charged.every((c: any) => c.status === "succeeded" && /^0x[0-9a-f]{64}$/.test(c.txHash))).toBe(true)

    // The same signed offer sent again is the same subscription, not a second one.
    const listed = await partner("GET", `/v1/subscriptions?planId=${planId}`)
    expect(listed.body.data.filter((s: any) => s.payer === caip10(payer.address))).toHaveLength(1)
  }, 150_000)

  it("the payer cancels through the manage link, the merchant through the API; nothing is charged after, and the contract closes it too", async () => {
    const payer = await newPermit2Payer(api.world.chain, funder, 10n * fee)
    const viaLink = await subscribe(planId, payer)
    await until(viaLink.subscription.id, (s) => s.charges.some((c: any) => c.status === "succeeded"))
    const token = new URL(viaLink.manageUrl).hash.slice(1)
    expect((await wallet("GET", `/v1/gateway/subscription/${viaLink.subscription.id}?token=${randomBytes(8).toString("hex")}`)).status).toBe(404)
    const seen = await wallet("GET", `/v1/gateway/subscription/${viaLink.subscription.id}?token=${token}`)
    expect(seen.status).toBe(200)
    expect(seen.body).toMatchObject({ plan: { name: "Coffee club" }, merchant: { name: "Corner Coffee" }, subscription: { status: "active" } })
    const cancelled = await wallet("POST", `/v1/gateway/subscription/${viaLink.subscription.id}/cancel`, { token })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.subscription).toMatchObject({ status: "cancelled", cancelledBy: "payer" })
    const cancelledAt = cancelled.body.subscription.updatedAt
    const closed = await until(viaLink.subscription.id, (s) => s.cancelTx !== null)
    // A charge already sent when the cancellation came may still land; none of a period begun after it.
    const paidByLink = closed.charges.filter((c: any) => c.status === "succeeded")
    expect(paidByLink.length).toBeGreaterThanOrEqual(1)
    expect(paidByLink.every((c: any) => c.periodStart <= cancelledAt)).toBe(true)

    const second = await newPermit2Payer(api.world.chain, funder, 10n * fee)
    const byMerchant = await subscribe(planId, second)
    const cancel = await partner("POST", `/v1/subscriptions/${byMerchant.subscription.id}/cancel`)
    expect(cancel.status).toBe(200)
    expect(cancel.body).toMatchObject({ status: "cancelled", cancelledBy: "merchant" })
    // Cancelling again answers it as it is (the worker may have closed it in the contract meanwhile): no second event.
    const again = await partner("POST", `/v1/subscriptions/${byMerchant.subscription.id}/cancel`)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ status: "cancelled", cancelledBy: "merchant" })

    // Three periods later neither payer paid again.
    await new Promise((resolve) => setTimeout(resolve, 3 * period * 1000))
    expect(await balanceOf(payer.address)).toBe(10n * fee - BigInt(paidByLink.length) * fee)
    expect((await until(viaLink.subscription.id, () => true)).charges.filter((c: any) => c.status === "succeeded")).toHaveLength(paidByLink.length)
    const merchantCancelled = await until(byMerchant.subscription.id, () => true)
    const paidBefore = BigInt(merchantCancelled.charges.filter((c: any) => c.status === "succeeded").length)
    expect(await balanceOf(second.address)).toBe(10n * fee - paidBefore * fee)
    const types = api.hooks.on("/subscriptions").filter((r) => r.envelope.data.subscription?.id === byMerchant.subscription.id).map((r) => r.envelope.type)
    expect(types.filter((type) => type === "subscription.cancelled")).toHaveLength(1)
  }, 150_000)

  it("a payer moves to a new price from the next period: each period is paid once, the old price up to it, the new from it", async () => {
    const dearer = await partner("POST", "/v1/plans", {
      merchantId: api.world.merchantId,
      name: "Coffee club (new price)",
      amount: { unit: `caip19/${usdc()}`, value: (2n * fee).toString() },
      periodSeconds: period,
      periods: 2
    })
    expect(dearer.status).toBe(201)
    const payer = await newPermit2Payer(api.world.chain, funder, 10n * fee)
    const old = await subscribe(planId, payer)
    await until(old.subscription.id, (s) => s.charges.some((c: any) => c.status === "succeeded"))
    const token = new URL(old.manageUrl).hash.slice(1)
    const offer = await wallet("POST", `/v1/gateway/plan/${dearer.body.planId}/offer`, {
      payer: caip10(payer.address),
      replaces: { subscriptionId: old.subscription.id, token }
    })
    expect(offer.status, JSON.stringify(offer.body)).toBe(200)
    const signature = await Chain.LocalWallet.signTypedDataJson(payer.privateKey, offer.body.typedData)
    const moved = await wallet("POST", `/v1/gateway/plan/${dearer.body.planId}/subscribe`, { offer: offer.body.offer, signature })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)

    const ended = await until(old.subscription.id, (s) => s.status === "ended", 60)
    expect(ended).toMatchObject({ endedReason: "replaced", replacedBy: moved.body.subscription.id })
    const completed = await until(moved.body.subscription.id, (s) => s.status === "ended", 90)
    expect(completed.endedReason).toBe("completed")
    // The old subscription's paid periods end where the new one's begin.
    const oldPaid = ended.charges.filter((c: any) => c.status === "succeeded").map((c: any) => c.periodStart)
    const newPaid = completed.charges.filter((c: any) => c.status === "succeeded").map((c: any) => c.periodStart)
    expect(newPaid).toHaveLength(2)
    expect(Math.max(...oldPaid)).toBeLessThan(Math.min(...newPaid))
    expect(Math.min(...newPaid) - Math.max(...oldPaid)).toBe(period)
    expect(await balanceOf(payer.address)).toBe(10n * fee - BigInt(oldPaid.length) * fee - 4n * fee)
  }, 150_000)

  it("refuses what the buyer or merchant cannot do, with the contract's codes", async () => {
    const payer = await newPermit2Payer(api.world.chain, funder, 10n * fee)
    const offer = await wallet("POST", `/v1/gateway/plan/${planId}/offer`, { payer: caip10(payer.address) })
    // A signature by someone else, a forged offer, an unknown plan, the other mode's client.
    const stranger = await wallet("POST", `/v1/gateway/plan/${planId}/subscribe`, { offer: offer.body.offer, signature: `0x${"11".repeat(65)}` })
    expect(stranger.status).toBe(400)
    expect(stranger.body.code).toBe("params_validation")
    const forged = await wallet("POST", `/v1/gateway/plan/${planId}/subscribe`, { offer: `${offer.body.offer}x`, signature: "0x00" })
    expect(forged.body.code).toBe("invalid_params")
    expect((await wallet("GET", "/v1/gateway/plan/pln_nothing")).body.code).toBe("payment_not_found")
    expect((await partner("POST", "/v1/plans", { merchantId: api.world.merchantId, name: "x", amount: { unit: "iso4217/USD", value: "100" }, periodSeconds: 1 })).body.code)
      .toBe("params_validation")
    expect((await partner("POST", `/v1/plans/${planId}/deactivate`)).body.active).toBe(false)
    const closedOffer = await wallet("POST", `/v1/gateway/plan/${planId}/offer`, { payer: caip10(payer.address) })
    expect(closedOffer.status).toBe(409)
    expect(closedOffer.body.code).toBe("invalid_state")
    expect((await partner("POST", `/v1/plans/${planId}/activate`)).body.active).toBe(true)
  }, 60_000)
})
