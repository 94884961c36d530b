/**
 * paygate's facilitator API against the published `@x402/core` facilitator client, on a local
 * chain: what `supported` lists per merchant, every refusal with x402's reason and a message (and
 * nothing settled after one), a reused nonce, two resource servers settling one payload at once,
 * a retried settle, and the chain down at settle.
 */
import { HTTPFacilitatorClient } from "@x402/core/server"
import type { PaymentRequirements } from "@x402/core/types"
import { type Address, type Hex, parseAbiItem } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { expect, it } from "vitest"
import { forEachDatabase } from "../support/TestServer.ts"
import { signedPayload } from "./X402Payloads.ts"
import { price, x402World } from "./X402World.ts"

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")

forEachDatabase("x402 facilitator: refusals, concurrent and retried settles, the chain down (anvil)", (database) => {
  const world = x402World(database)
  const chainId = () => Number(world.network().split(":")[1])
  const requirements = (overrides: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
    scheme: "exact",
    network: world.network(),
    asset: world.token().address,
    amount: price.toString(),
    payTo: world.chain().chain.collectionAddress,
    maxTimeoutSeconds: 300,
    extra: { name: world.token().name, version: world.token().version },
    ...overrides
  })
  const facilitator = (headers: Record<string, string> = world.facilitatorHeaders()) =>
    new HTTPFacilitatorClient({
      url: `${world.paygate().url}/x402`,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers })
    })
  const payments = async () => {
    const page = await world.server.request("GET", `/v1/payments?merchantId=${world.merchantId()}&limit=100`, { apiKey: world.sandboxKey() })
    return page.body.data as Array<any>
  }
  const transfersFrom = async (from: Address) =>
    world.chain().client.getLogs({ address: world.token().address, event: transferEvent, args: { from }, fromBlock: 0n, toBlock: "latest" })

  it("lists the exact scheme on the local chain for a sandbox merchant, nothing for a live one, and refuses an unknown merchant", async () => {
    expect((await facilitator().getSupported()).kinds).toEqual([{
      x402Version: 2,
      scheme: "exact",
      network: world.network(),
      extra: {
        payTo: world.chain().chain.collectionAddress,
        assets: [{ address: world.token().address, symbol: "TUSDC", decimals: 6, domain: { name: world.token().name, version: world.token().version } }]
      }
    }])
    const partner = await world.server.partner()
    const live = await world.server.merchant(partner.live, "Live desk")
    const liveResponse = await world.server.request("GET", "/x402/supported", { apiKey: partner.live, headers: { "merchant-id": live } })
    expect(liveResponse.body.kinds).toEqual([])
    const unknown = await world.server.request("GET", "/x402/supported", { apiKey: world.sandboxKey(), headers: { "merchant-id": live } })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("merchant_not_found")
  }, 60_000)

  it("refuses with x402's reason and a message, and settles nothing after a refusal", async () => {
    const buyer = await world.buyer()
    const poor = await world.buyer(0n)
    const stranger = privateKeyToAccount(generatePrivateKey())
    const now = BigInt(Math.floor(Date.now() / 1000))
    const elsewhere = requirements({ network: "eip155:1" })
    const otherToken = requirements({ asset: stranger.address })
    const otherPayTo = requirements({ payTo: stranger.address })
    const cases: ReadonlyArray<readonly [string, Promise<any>, PaymentRequirements, string]> = [
      ["a signature not the payer's", signedPayload(buyer, { requirements: requirements(), chainId: chainId(), signer: stranger }), requirements(), "invalid_exact_evm_signature"],
      ["less than the requirements", signedPayload(buyer, { requirements: requirements(), chainId: chainId(), value: price - 1n }), requirements(), "invalid_exact_evm_payload_authorization_value_mismatch"],
      ["an expired validBefore", signedPayload(buyer, { requirements: requirements(), chainId: chainId(), validBefore: now - 10n }), requirements(), "invalid_exact_evm_payload_authorization_valid_before"],
      ["a validAfter to come", signedPayload(buyer, { requirements: requirements(), chainId: chainId(), validAfter: now + 600n }), requirements(), "invalid_exact_evm_payload_authorization_valid_after"],
      ["a network paygate does not serve", signedPayload(buyer, { requirements: elsewhere, chainId: 1 }), elsewhere, "invalid_network"],
      ["a token paygate does not take", signedPayload(buyer, { requirements: otherToken, chainId: chainId() }), otherToken, "invalid_exact_evm_eip3009_not_supported"],
      ["a payTo that is not paygate's", signedPayload(buyer, { requirements: otherPayTo, chainId: chainId() }), otherPayTo, "invalid_exact_evm_recipient_mismatch"],
      ["a payer short of funds", signedPayload(poor, { requirements: requirements(), chainId: chainId() }), requirements(), "invalid_exact_evm_insufficient_balance"]
    ]
    const before = (await payments()).length
    for (const [what, payload, asked, reason] of cases) {
      const verdict = await facilitator().verify(await payload, asked)
      expect(verdict.isValid, what).toBe(false)
      expect(verdict.invalidReason, what).toBe(reason)
      expect(verdict.invalidMessage, what).toMatch(/.{20,}/)
      const settled = await facilitator().settle(await payload, asked)
      expect([settled.success, settled.errorReason, settled.transaction], what).toEqual([false, reason, ""])
    }
    const unknownMerchant = await facilitator({ ...world.facilitatorHeaders(), "Merchant-Id": "mer_00000000000000000000000000" })
      .settle(await signedPayload(buyer, { requirements: requirements(), chainId: chainId() }), requirements())
    expect([unknownMerchant.success, unknownMerchant.errorReason]).toEqual([false, "invalid_payment_requirements"])
    expect(unknownMerchant.errorMessage).toBe("No merchant mer_00000000000000000000000000 for this API key.")
    // Nothing settled: no payment, no transfer.
    expect((await payments()).length).toBe(before)
    expect(await transfersFrom(buyer.address)).toEqual([])
    expect(await world.chain().balanceOf(buyer.address)).toBe(1_000_000n)
  }, 120_000)

  it("settles a nonce once: a retried settle answers the same transaction, another payload with the nonce is refused", async () => {
    const buyer = await world.buyer()
    const payload = await signedPayload(buyer, { requirements: requirements(), chainId: chainId() })
    const first = await facilitator().settle(payload, requirements())
    expect(first.success, first.errorMessage).toBe(true)
    const retried = await facilitator().settle(payload, requirements())
    expect(retried).toEqual(first)
    const nonce = (payload.payload.authorization as { nonce: Hex }).nonce
    const reused = await signedPayload(buyer, { requirements: requirements(), chainId: chainId(), nonce, validBefore: BigInt(Math.floor(Date.now() / 1000) + 200) })
    const refused = await facilitator().settle(reused, requirements())
    expect([refused.success, refused.errorReason]).toEqual([false, "invalid_exact_evm_nonce_already_used"])
    const verdict = await facilitator().verify(payload, requirements())
    expect([verdict.isValid, verdict.invalidReason]).toEqual([false, "invalid_exact_evm_nonce_already_used"])
    expect(await transfersFrom(buyer.address)).toHaveLength(1)
    expect((await payments()).filter((p) => p.buyer?.accountCaip10.toLowerCase() === `${world.network()}:${buyer.address}`.toLowerCase())).toHaveLength(1)
  }, 120_000)

  it("two resource servers settle the same payload at once: one payment, one transfer, the same answer for both", async () => {
    const buyer = await world.buyer()
    const payload = await signedPayload(buyer, { requirements: requirements(), chainId: chainId() })
    const [a, b] = await Promise.all([facilitator().settle(payload, requirements()), facilitator().settle(payload, requirements())])
    expect(a.success, a.errorMessage).toBe(true)
    expect(b).toEqual(a)
    const logs = await transfersFrom(buyer.address)
    expect(logs).toHaveLength(1)
    expect(logs[0]!.transactionHash).toBe(a.transaction)
    expect((await payments()).filter((p) => p.buyer?.accountCaip10.toLowerCase() === `${world.network()}:${buyer.address}`.toLowerCase())).toHaveLength(1)
  }, 120_000)

  it("the chain down at settle: the answer says so, nothing is recorded, and a later settle of the payload completes", async () => {
    const buyer = await world.buyer()
    const payload = await signedPayload(buyer, { requirements: requirements(), chainId: chainId() })
    const before = (await payments()).length
    world.chain().proxy.cut()
    try {
      const down = await facilitator().settle(payload, requirements())
      expect([down.success, down.errorReason, down.transaction]).toEqual([false, "unexpected_verify_error", ""])
      expect(down.errorMessage).toMatch(/chain could not be read/)
      expect((await payments()).length).toBe(before)
    } finally {
      world.chain().proxy.restore()
    }
    const later = await facilitator().settle(payload, requirements())
    expect(later.success, later.errorMessage).toBe(true)
    expect(await transfersFrom(buyer.address)).toHaveLength(1)
    expect(await world.chain().balanceOf(buyer.address)).toBe(1_000_000n - price)
  }, 120_000)
})
