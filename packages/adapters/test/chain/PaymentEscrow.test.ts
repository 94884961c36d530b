/**
 * The payment escrow itself on anvil (`PaymentEscrow.sol`): one signature holds the funds under fixed
 * terms; captures (in parts) go only to the receiver, voids and reclaims only to the payer, refunds
 * never beyond what was captured; every deadline and every caller is checked; a capture racing a
 * reclaim in one block leaves exactly one of them paid.
 */
import { Effect, Exit, Scope } from "effect"
import {
  type Address,
  encodeFunctionData,
  type Hex,
  type PublicClient
} from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { PaymentEscrow, TestUsdc } from "../../src/chain/contracts.generated.ts"
import type * as LocalChain from "../../src/chain/LocalChain.ts"
import { escrowAuthorizationTypedData, escrowCalls, type EscrowTerms, escrowTermsHash } from "../../src/chain/PaymentEscrow.ts"
import { refusalOf, startLocalChain, walletOn } from "./support/LocalChainFile.ts"
import { sendCall } from "../../../../test/support/Permit2Payer.ts"

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient
let escrow: Address

const operator = anvilAccount(4)
const payer = anvilAccount(6)
const receiver = anvilAccount(7)
const stranger = anvilAccount(5)
type Account = typeof operator

const walletOf = (from: Account) => walletOn(chain, from)

beforeAll(async () => {
  ;({ chain, client } = await startLocalChain(scope))
  const hash = await walletOf(operator).deployContract({ chain: null, abi: PaymentEscrow.abi, bytecode: PaymentEscrow.bytecode })
  escrow = (await client.waitForTransactionReceipt({ hash })).contractAddress!
  // The operator pays refunds from its own funds, approved to the escrow once.
  await call(operator, chain.contracts.usdc, encodeFunctionData({ abi: TestUsdc.abi, functionName: "approve", args: [escrow, 2n ** 255n] }))
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** Sends `data` to `to`; answers the receipt (reverted ones too: the gas is fixed, nothing estimated). */
const call = (from: Account, to: Address, data: Hex) => sendCall(chain.node.rpcUrl, from, to, data)
/** The escrow's custom error `data` would revert with, from `from` (answers null when it would succeed). */
const refusal = (from: Account, data: Hex) => refusalOf(client, PaymentEscrow.abi, from.address, escrow, data)
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
const now = async () => (await client.getBlock()).timestamp
const mineAt = (timestamp: bigint) => client.request({ method: "evm_mine" as never, params: [Number(timestamp)] as never })
const held = async (terms: EscrowTerms) => {
  const [amount, captured, refunded] = await client.readContract({
    address: escrow,
    abi: PaymentEscrow.abi,
    functionName: "payments",
    args: [escrowTermsHash(chain.node.chainId, escrow, terms)]
  })
  return { held: amount, captured, refunded }
}

/** Fresh terms: capture within an hour, refunds within a day. */
const termsFor = async (overrides: Partial<EscrowTerms> = {}): Promise<EscrowTerms> => {
  const t = await now()
  return {
    operator: operator.address,
    payer: payer.address,
    receiver: receiver.address,
    token: chain.contracts.usdc,
    authorizeBefore: t + 600n,
    captureBefore: t + 3_600n,
    refundBefore: t + 86_400n,
    salt: `0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}`,
    ...overrides
  }
}
const sign = (terms: EscrowTerms, amount: bigint, signer: Account = payer) =>
  walletOf(signer).signTypedData(escrowAuthorizationTypedData(
    { name: "Test USD Coin", version: "2", chainId: chain.node.chainId, verifyingContract: chain.contracts.usdc },
    escrow,
    terms,
    amount
  ))
const authorized = async (amount: bigint, overrides: Partial<EscrowTerms> = {}) => {
  const terms = await termsFor(overrides)
  const receipt = await call(operator, escrow, escrowCalls.authorize(terms, amount, await sign(terms, amount)))
  expect(receipt.status).toBe("success")
  return terms
}

describe("PaymentEscrow", () => {
  it("holds exactly the signed amount, once; the same signature under other terms moves nothing", async () => {
    const before = await balanceOf(payer.address)
    const terms = await termsFor()
    const signature = await sign(terms, 5_000_000n)
    // Another receiver, another operator, a longer capture window, another amount: each a different message.
    for (const changed of [{ receiver: stranger.address }, { captureBefore: terms.captureBefore + 1n }]) {
      expect(await refusal(operator, escrowCalls.authorize({ ...terms, ...changed }, 5_000_000n, signature))).not.toBeNull()
    }
    expect(await refusal(operator, escrowCalls.authorize(terms, 5_000_001n, signature))).not.toBeNull()
    expect(await refusal(stranger, escrowCalls.authorize({ ...terms, operator: stranger.address }, 5_000_000n, signature))).not.toBeNull()
    expect(await refusal(stranger, escrowCalls.authorize(terms, 5_000_000n, signature))).toBe("NotOperator")
    expect((await call(operator, escrow, escrowCalls.authorize(terms, 5_000_000n, signature))).status).toBe("success")
    expect(await held(terms)).toEqual({ held: 5_000_000n, captured: 0n, refunded: 0n })
    expect(await balanceOf(payer.address)).toBe(before - 5_000_000n)
    expect(await refusal(operator, escrowCalls.authorize(terms, 5_000_000n, signature))).toBe("AlreadyAuthorized")
    // Signed by someone else than the payer the terms name: the token refuses it.
    const other = await termsFor()
    expect(await refusal(operator, escrowCalls.authorize(other, 1n, await sign(other, 1n, stranger)))).not.toBeNull()
  })

  it("captures in parts up to what is held, only to the receiver, only by the operator", async () => {
    const terms = await authorized(10_000_000n)
    const start = await balanceOf(receiver.address)
    expect(await refusal(stranger, escrowCalls.capture(terms, 1n, 0n))).toBe("NotOperator")
    expect((await call(operator, escrow, escrowCalls.capture(terms, 4_000_000n, 0n))).status).toBe("success")
    expect((await call(operator, escrow, escrowCalls.capture(terms, 5_000_000n, 4_000_000n))).status).toBe("success")
    expect(await refusal(operator, escrowCalls.capture(terms, 1_000_001n, 9_000_000n))).toBe("TooMuch")
    expect(await refusal(operator, escrowCalls.capture(terms, 0n, 9_000_000n))).toBe("TooMuch")
    expect((await call(operator, escrow, escrowCalls.capture(terms, 1_000_000n, 9_000_000n))).status).toBe("success")
    expect(await balanceOf(receiver.address)).toBe(start + 10_000_000n)
    expect(await held(terms)).toEqual({ held: 0n, captured: 10_000_000n, refunded: 0n })
    expect(await refusal(operator, escrowCalls.capture(terms, 1n, 10_000_000n))).toBe("NothingHeld")
    expect(await refusal(operator, escrowCalls.void(terms))).toBe("NothingHeld")
  })

  it("a capture is valid only while the escrow counts what it expects as captured: the same capture sent twice, the second reverts", async () => {
    const terms = await authorized(8_000_000n)
    const start = await balanceOf(receiver.address)
    // Before anything was captured, a capture that believes some was is stale, and moves nothing.
    expect(await refusal(operator, escrowCalls.capture(terms, 1_000_000n, 1n))).toBe("Stale")
    const first = escrowCalls.capture(terms, 3_000_000n, 0n)
    expect((await call(operator, escrow, first)).status).toBe("success")
    // The same call again (a retry of a capture that was mined after all): stale, even though enough is held.
    expect(await refusal(operator, first)).toBe("Stale")
    expect((await call(operator, escrow, first)).status).toBe("reverted")
    // Two captures, each with what was captured before it, add up.
    expect((await call(operator, escrow, escrowCalls.capture(terms, 2_000_000n, 3_000_000n))).status).toBe("success")
    expect(await held(terms)).toEqual({ held: 3_000_000n, captured: 5_000_000n, refunded: 0n })
    expect(await balanceOf(receiver.address)).toBe(start + 5_000_000n)
    // Stale is checked before the amount: a capture of too much with a stale count is stale.
    expect(await refusal(operator, escrowCalls.capture(terms, 9_000_000n, 3_000_000n))).toBe("Stale")
  })

  it("a void gives the rest back to the payer; nothing is captured or voided after it", async () => {
    const terms = await authorized(3_000_000n)
    await call(operator, escrow, escrowCalls.capture(terms, 1_000_000n, 0n))
    const before = await balanceOf(payer.address)
    expect(await refusal(payer, escrowCalls.void(terms))).toBe("NotOperator")
    expect((await call(operator, escrow, escrowCalls.void(terms))).status).toBe("success")
    expect(await balanceOf(payer.address)).toBe(before + 2_000_000n)
    expect(await refusal(operator, escrowCalls.capture(terms, 1n, 1_000_000n))).toBe("NothingHeld")
    expect(await refusal(operator, escrowCalls.void(terms))).toBe("NothingHeld")
  })

  it("refunds only what was captured, from the operator's funds, within the refund window", async () => {
    const terms = await authorized(2_000_000n)
    expect(await refusal(operator, escrowCalls.refund(terms, 1n))).toBe("TooMuch")
    await call(operator, escrow, escrowCalls.capture(terms, 1_500_000n, 0n))
    const before = await balanceOf(payer.address)
    expect(await refusal(stranger, escrowCalls.refund(terms, 1n))).toBe("NotOperator")
    expect((await call(operator, escrow, escrowCalls.refund(terms, 1_000_000n))).status).toBe("success")
    expect(await refusal(operator, escrowCalls.refund(terms, 500_001n))).toBe("TooMuch")
    expect((await call(operator, escrow, escrowCalls.refund(terms, 500_000n))).status).toBe("success")
    expect(await balanceOf(payer.address)).toBe(before + 1_500_000n)
    expect(await held(terms)).toEqual({ held: 500_000n, captured: 1_500_000n, refunded: 1_500_000n })
  })

  it("every deadline: authorize and capture before theirs, reclaim only after the capture deadline and only by the payer, refunds before theirs", async () => {
    const expired = await termsFor()
    const signature = await sign(expired, 1_000_000n)
    await mineAt(expired.authorizeBefore)
    expect(await refusal(operator, escrowCalls.authorize(expired, 1_000_000n, signature))).not.toBeNull()

    const terms = await authorized(4_000_000n)
    await call(operator, escrow, escrowCalls.capture(terms, 1_000_000n, 0n))
    expect(await refusal(payer, escrowCalls.reclaim(terms))).toBe("DeadlineNotPassed")
    await mineAt(terms.captureBefore)
    expect(await refusal(operator, escrowCalls.capture(terms, 1n, 1_000_000n))).toBe("DeadlinePassed")
    expect(await refusal(stranger, escrowCalls.reclaim(terms))).toBe("NotPayer")
    const before = await balanceOf(payer.address)
    expect((await call(payer, escrow, escrowCalls.reclaim(terms))).status).toBe("success")
    expect(await balanceOf(payer.address)).toBe(before + 3_000_000n)
    expect(await refusal(payer, escrowCalls.reclaim(terms))).toBe("NothingHeld")
    // The captured part can still be refunded until the refund deadline, not after.
    expect(await refusal(operator, escrowCalls.refund(terms, 1n))).toBeNull()
    await mineAt(terms.refundBefore)
    expect(await refusal(operator, escrowCalls.refund(terms, 1n))).toBe("DeadlinePassed")
    // Terms whose capture window outlasts their refund window are refused outright.
    const t = await now()
    const bad = await termsFor({ captureBefore: t + 100n, refundBefore: t + 50n })
    expect(await refusal(operator, escrowCalls.authorize(bad, 1n, await sign(bad, 1n)))).toBe("BadTerms")
  })

  it("a capture racing a reclaim in one block: exactly one is paid, and every unit lands once", async () => {
    for (const atDeadline of [false, true]) {
      const terms = await authorized(6_000_000n)
      const [payerBefore, receiverBefore] = await Promise.all([balanceOf(payer.address), balanceOf(receiver.address)])
      await client.request({ method: "evm_setAutomine" as never, params: [false] as never })
      try {
        const hashes = await Promise.all([
          walletOf(operator).sendTransaction({ chain: null, to: escrow, data: escrowCalls.capture(terms, 6_000_000n, 0n), gas: 500_000n }),
          walletOf(payer).sendTransaction({ chain: null, to: escrow, data: escrowCalls.reclaim(terms), gas: 500_000n })
        ])
        await mineAt(atDeadline ? terms.captureBefore : terms.captureBefore - 1n)
        const [captured, reclaimed] = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })))
        expect([captured!.status, reclaimed!.status]).toEqual(atDeadline ? ["reverted", "success"] : ["success", "reverted"])
      } finally {
        await client.request({ method: "evm_setAutomine" as never, params: [true] as never })
      }
      const [payerAfter, receiverAfter] = await Promise.all([balanceOf(payer.address), balanceOf(receiver.address)])
      expect([payerAfter - payerBefore, receiverAfter - receiverBefore]).toEqual(atDeadline ? [6_000_000n, 0n] : [0n, 6_000_000n])
      expect((await held(terms)).held).toBe(0n)
    }
  })
})
