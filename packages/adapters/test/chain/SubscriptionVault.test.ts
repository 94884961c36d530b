/**
 * The subscription vault on anvil (`SubscriptionVault.sol`) with Permit2's allowances (`TestPermit2` at
 * Permit2's canonical address): one signature lets the operator charge at most the plan's amount per
 * period for the plan's term, only to the receiver, through a clone only the vault can drive; a year of
 * monthly charges with time travel, partial and failed charges, trials and arrears, cancellation here and
 * revocation in Permit2; every caller is checked, and the signature fixes every term.
 */
import { Effect, Exit, Scope } from "effect"
import {
  type Address,
  concat,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  maxUint160,
  parseEventLogs,
  type PublicClient
} from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { SubscriptionSpender, SubscriptionVault, TestPermit2, TestUsdc } from "../../src/chain/contracts.generated.ts"
import type * as LocalChain from "../../src/chain/LocalChain.ts"
import { permit2Address, type PermitSingle } from "../../src/chain/Permit2.ts"
import {
  subscriptionCalls,
  subscriptionPermitTypedData,
  subscriptionSpender,
  type SubscriptionTerms,
  subscriptionTermsHash
} from "../../src/chain/SubscriptionVault.ts"
import { newPermit2Payer, sendCall } from "../../../../test/support/Permit2Payer.ts"
import { refusalOf, startLocalChain, walletOn } from "./support/LocalChainFile.ts"

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient
let vault: Address

const operator = anvilAccount(4)
const receiver = anvilAccount(7)
const stranger = anvilAccount(5)
const funder = anvilAccount(8)
type Account = typeof operator

const month = 30 * 86_400
const fee = 10_000_000n

const walletOf = (from: Account) => walletOn(chain, from)

beforeAll(async () => {
  ;({ chain, client } = await startLocalChain(scope))
  const hash = await walletOf(operator).deployContract({
    chain: null,
    abi: SubscriptionVault.abi,
    bytecode: SubscriptionVault.bytecode,
    args: [permit2Address]
  })
  vault = (await client.waitForTransactionReceipt({ hash })).contractAddress!
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** Sends `data` to `to`; answers the receipt (reverted ones too: the gas is fixed, nothing estimated). */
const call = (from: Account, to: Address, data: Hex) => sendCall(chain.node.rpcUrl, from, to, data)
const errors = [...SubscriptionVault.abi, ...SubscriptionSpender.abi, ...TestPermit2.abi].filter((item) => item.type === "error")
/** The custom error (the vault's, the clone's or Permit2's, with its arguments) `data` would revert with (null when it would succeed). */
const refusal = (from: Account, data: Hex, to: Address = vault) => refusalOf(client, errors, from.address, to, data)
const usdc = (functionName: "transfer" | "approve", to: Address, value: bigint) =>
  encodeFunctionData({ abi: TestUsdc.abi, functionName, args: [to, value] })
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
const now = async () => Number((await client.getBlock()).timestamp)
const mineAt = (timestamp: number) => client.request({ method: "evm_mine" as never, params: [timestamp] as never })
const nextBlockAt = (timestamp: number) => client.request({ method: "evm_setNextBlockTimestamp" as never, params: [timestamp] as never })
const increaseTime = async (seconds: number) => {
  await client.request({ method: "evm_increaseTime" as never, params: [seconds] as never })
  await client.request({ method: "evm_mine" as never, params: [] as never })
}
const hashOf = (terms: SubscriptionTerms) => subscriptionTermsHash(chain.node.chainId, vault, terms)
const read = {
  charged: (terms: SubscriptionTerms, periodIndex: bigint) =>
    client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "charged", args: [hashOf(terms), periodIndex] }),
  subscription: (terms: SubscriptionTerms) =>
    client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "subscriptionOf", args: [hashOf(terms)] }),
  allowance: async (terms: SubscriptionTerms) => {
    const [amount, expiration, nonce] = await client.readContract({
      address: permit2Address,
      abi: TestPermit2.abi,
      functionName: "allowance",
      args: [terms.payer, terms.token, subscriptionSpender(vault, hashOf(terms))]
    })
    return { amount, expiration, nonce }
  }
}

/** A new buyer with `funds` TUSDC, gas, and Permit2 approved on TUSDC (as a wallet does once). */
const newPayer = (funds: bigint): Promise<Account> => newPermit2Payer(chain, funder, funds)
/** Fresh terms for `payer`: 10 TUSDC a month for a year, from now. */
const termsFor = async (payer: Account, overrides: Partial<SubscriptionTerms> = {}): Promise<SubscriptionTerms> => ({
  operator: operator.address,
  payer: payer.address,
  receiver: receiver.address,
  token: chain.contracts.usdc,
  amountPerPeriod: fee,
  period: month,
  start: await now(),
  periods: 12,
  salt: `0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}`,
  ...overrides
})
/** The payer's permit for `terms` and its signature (by `signer`, the payer unless told). */
const sign = async (terms: SubscriptionTerms, signer: Account) => {
  const typedData = subscriptionPermitTypedData(chain.node.chainId, vault, terms, 0, BigInt((await now()) + 3_600))
  return { permit: typedData.message, signature: await walletOf(signer).signTypedData(typedData) }
}
const subscribed = async (payer: Account, overrides: Partial<SubscriptionTerms> = {}) => {
  const terms = await termsFor(payer, overrides)
  const { permit, signature } = await sign(terms, payer)
  expect((await call(operator, vault, subscriptionCalls.subscribe(terms, permit, signature))).status).toBe("success")
  return terms
}
const charge = (terms: SubscriptionTerms, periodIndex: bigint, amount: bigint) => call(operator, vault, subscriptionCalls.charge(terms, periodIndex, amount))

describe("SubscriptionVault", () => {
  it("a year of monthly charges: each period once in full, to the receiver; the thirteenth is refused", async () => {
    const payer = await newPayer(12n * fee)
    const terms = await subscribed(payer)
    expect(await read.allowance(terms)).toEqual({ amount: 12n * fee, expiration: terms.start + 12 * month, nonce: 1 })
    const before = await balanceOf(receiver.address)
    for (let index = 0n; index < 12n; index++) {
      const receipt = await charge(terms, index, fee)
      expect(receipt.status).toBe("success")
      const [charged] = parseEventLogs({ abi: SubscriptionVault.abi, eventName: "Charged", logs: receipt.logs })
      expect(charged!.args).toEqual({ termsHash: hashOf(terms), periodIndex: index, amount: fee })
      expect(await read.charged(terms, index)).toBe(fee)
      expect(await refusal(operator, subscriptionCalls.charge(terms, index, 1n))).toBe("OverCap")
      await increaseTime(month)
    }
    expect(await balanceOf(receiver.address)).toBe(before + 12n * fee)
    expect(await balanceOf(payer.address)).toBe(0n)
    expect((await read.allowance(terms)).amount).toBe(0n)
    expect(await refusal(operator, subscriptionCalls.charge(terms, 12n, fee))).toBe("TermOver")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 11n, 1n))).toBe("TermOver")
  })

  it("never more than the amount per period: partial charges add up to it, and one unit beyond is refused on chain", async () => {
    const payer = await newPayer(100n * fee)
    // Open-ended: an unlimited allowance that never expires; the vault's cap is all that limits it.
    const terms = await subscribed(payer, { periods: 0 })
    expect(await read.allowance(terms)).toEqual({ amount: maxUint160, expiration: 2 ** 48 - 1, nonce: 1 })
    expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, fee + 1n))).toBe("OverCap")
    expect((await call(operator, vault, subscriptionCalls.charge(terms, 0n, fee + 1n))).status).toBe("reverted")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, 0n))).toBe("ZeroAmount")
    expect((await charge(terms, 0n, 6_000_000n)).status).toBe("success")
    expect((await charge(terms, 0n, 4_000_000n)).status).toBe("success")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, 1n))).toBe("OverCap")
    expect(await read.charged(terms, 0n)).toBe(fee)
    await increaseTime(month)
    expect((await charge(terms, 1n, fee)).status).toBe("success")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 1n, 1n))).toBe("OverCap")
    expect(await balanceOf(payer.address)).toBe(98n * fee)
    expect((await read.allowance(terms)).amount).toBe(maxUint160)
  })

  it("a failed charge is recovered: in the same period once the payer tops up, or in the next one", async () => {
    const payer = await newPayer(fee / 2n)
    const terms = await subscribed(payer)
    // Too little on the payer's account: the token transfer fails in Permit2, and nothing counts against the cap.
    expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, fee))).toBe("TransferFailed")
    expect((await charge(terms, 0n, fee)).status).toBe("reverted")
    expect(await read.charged(terms, 0n)).toBe(0n)
    await call(funder, chain.contracts.usdc, usdc("transfer", payer.address, fee / 2n))
    expect((await charge(terms, 0n, fee)).status).toBe("success")

    // Period 1 fails, the payer tops up during period 2: both are charged then.
    await increaseTime(month)
    expect((await charge(terms, 1n, fee)).status).toBe("reverted")
    await increaseTime(month)
    await call(funder, chain.contracts.usdc, usdc("transfer", payer.address, 2n * fee))
    expect((await charge(terms, 1n, fee)).status).toBe("success")
    expect((await charge(terms, 2n, fee)).status).toBe("success")
    expect(await balanceOf(payer.address)).toBe(0n)
  })

  it("the payer or the operator cancels; no charge passes afterwards", async () => {
    for (const by of [operator, "payer"] as const) {
      const payer = await newPayer(10n * fee)
      const canceller = by === "payer" ? payer : by
      const terms = await subscribed(payer)
      expect((await charge(terms, 0n, 1_000_000n)).status).toBe("success")
      expect(await refusal(stranger, subscriptionCalls.cancel(terms))).toBe("NotPayerOrOperator")
      expect(await refusal(receiver, subscriptionCalls.cancel(terms))).toBe("NotPayerOrOperator")
      const receipt = await call(canceller, vault, subscriptionCalls.cancel(terms))
      expect(receipt.status).toBe("success")
      const [cancelled] = parseEventLogs({ abi: SubscriptionVault.abi, eventName: "Cancelled", logs: receipt.logs })
      expect(cancelled!.args).toEqual({ termsHash: hashOf(terms), by: canceller.address })
      expect(await read.subscription(terms)).toEqual([true, true])
      expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, 1n))).toBe("SubscriptionCancelled")
      await increaseTime(month)
      expect(await refusal(operator, subscriptionCalls.charge(terms, 1n, 1n))).toBe("SubscriptionCancelled")
      expect(await refusal(canceller, subscriptionCalls.cancel(terms))).toBe("SubscriptionCancelled")
    }
    const unknown = await termsFor(stranger)
    expect(await refusal(operator, subscriptionCalls.cancel(unknown))).toBe("NotSubscribed")
    expect(await refusal(operator, subscriptionCalls.charge(unknown, 0n, 1n))).toBe("NotSubscribed")
  })

  it("a payer who revokes the allowance in Permit2 (approve to 0, lockdown) is charged nothing more", async () => {
    const payer = await newPayer(10n * fee)
    const approved = await subscribed(payer)
    const lockedDown = await subscribed(payer)
    for (const terms of [approved, lockedDown]) expect((await charge(terms, 0n, 1_000_000n)).status).toBe("success")

    const clone = subscriptionSpender(vault, hashOf(approved))
    const approve = encodeFunctionData({ abi: TestPermit2.abi, functionName: "approve", args: [approved.token, clone, 0n, 0] })
    const revokedAt = (await call(payer, permit2Address, approve)).blockNumber
    const { timestamp } = await client.getBlock({ blockNumber: revokedAt })
    await increaseTime(1)
    expect(await refusal(operator, subscriptionCalls.charge(approved, 0n, 1n))).toBe(`AllowanceExpired(${timestamp})`)

    const pair = { token: lockedDown.token, spender: subscriptionSpender(vault, hashOf(lockedDown)) }
    expect((await call(payer, permit2Address, encodeFunctionData({ abi: TestPermit2.abi, functionName: "lockdown", args: [[pair]] }))).status)
      .toBe("success")
    expect(await refusal(operator, subscriptionCalls.charge(lockedDown, 0n, 1n))).toBe("InsufficientAllowance(0)")
    expect((await charge(lockedDown, 0n, 1n)).status).toBe("reverted")
    expect(await read.charged(lockedDown, 0n)).toBe(1_000_000n)
  })

  it("no period before it starts (a trial); a missed period is caught up during the next one, not later; none after the term", async () => {
    const payer = await newPayer(10n * fee)
    const start = (await now()) + 14 * 86_400
    const terms = await subscribed(payer, { start, periods: 6 })
    expect(await refusal(operator, subscriptionCalls.charge(terms, 0n, fee))).toBe("PeriodNotStarted")
    await nextBlockAt(start - 1)
    expect((await charge(terms, 0n, fee)).status).toBe("reverted")
    await nextBlockAt(start)
    expect((await charge(terms, 0n, fee)).status).toBe("success")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 1n, fee))).toBe("PeriodNotStarted")

    // Periods 1 and 2 are missed; during period 3, period 2 is still due, period 1 no longer.
    await mineAt(start + 3 * month + 60)
    expect(await refusal(operator, subscriptionCalls.charge(terms, 1n, fee))).toBe("PeriodPassed")
    expect((await charge(terms, 2n, fee)).status).toBe("success")
    expect((await charge(terms, 3n, fee)).status).toBe("success")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 4n, fee))).toBe("PeriodNotStarted")
    expect(await read.charged(terms, 1n)).toBe(0n)

    // The last period is charged within the term (until the second before its end, when the allowance expires).
    await mineAt(start + 6 * month - 60)
    expect(await refusal(operator, subscriptionCalls.charge(terms, 3n, 1n))).toBe("PeriodPassed")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 4n, fee))).toBeNull()
    expect(await refusal(operator, subscriptionCalls.charge(terms, 6n, fee))).toBe("TermOver")
    await nextBlockAt(start + 6 * month - 1)
    expect((await charge(terms, 5n, fee / 2n)).status).toBe("success")
    await nextBlockAt(start + 6 * month)
    expect((await charge(terms, 5n, fee / 2n)).status).toBe("reverted")
    expect(await refusal(operator, subscriptionCalls.charge(terms, 5n, 1n))).toBe("TermOver")
    expect(await balanceOf(payer.address)).toBe(10n * fee - 3n * fee - fee / 2n)
  })

  it("only the operator subscribes and charges (not the payer, not a stranger)", async () => {
    const payer = await newPayer(10n * fee)
    const terms = await termsFor(payer)
    const { permit, signature } = await sign(terms, payer)
    for (const caller of [stranger, payer]) {
      expect(await refusal(caller, subscriptionCalls.subscribe(terms, permit, signature))).toBe("NotOperator")
    }
    expect((await call(operator, vault, subscriptionCalls.subscribe(terms, permit, signature))).status).toBe("success")
    for (const caller of [stranger, payer, receiver]) {
      expect(await refusal(caller, subscriptionCalls.charge(terms, 0n, 1n))).toBe("NotOperator")
    }
  })

  it("the signature fixes every term: the same permit under any other terms is refused, and so is a replay", async () => {
    const payer = await newPayer(10n * fee)
    const terms = await termsFor(payer)
    const { permit, signature } = await sign(terms, payer)
    const changes: ReadonlyArray<Partial<SubscriptionTerms>> = [
      { amountPerPeriod: fee + 1n },
      { receiver: stranger.address },
      { period: month - 1 },
      { periods: 13 },
      { periods: 0 },
      { start: terms.start + 1 },
      { operator: stranger.address },
      { salt: `0x${"11".repeat(32)}` }
    ]
    for (const change of changes) {
      const other = { ...terms, ...change }
      const caller = other.operator === stranger.address ? stranger : operator
      // The permit names the clone of the signed terms, not of these.
      expect(await refusal(caller, subscriptionCalls.subscribe(other, permit, signature))).toBe("PermitMismatch")
      // Pointed at these terms' clone (and allowance), it is no longer what the payer signed.
      const repointed = (await sign(other, payer)).permit
      expect(await refusal(caller, subscriptionCalls.subscribe(other, { ...repointed, sigDeadline: permit.sigDeadline }, signature)))
        .toBe("InvalidSigner")
    }
    // A permit for more, for longer, or for another token than the terms allow, even signed, is refused.
    const limits: ReadonlyArray<(p: PermitSingle) => PermitSingle> = [
      (p) => ({ ...p, details: { ...p.details, amount: p.details.amount + 1n } }),
      (p) => ({ ...p, details: { ...p.details, expiration: p.details.expiration + 1 } }),
      (p) => ({ ...p, details: { ...p.details, token: chain.contracts.usdt } })
    ]
    for (const widen of limits) {
      const wider = widen(permit)
      const typedData = { ...subscriptionPermitTypedData(chain.node.chainId, vault, terms, 0, permit.sigDeadline), message: wider }
      expect(await refusal(operator, subscriptionCalls.subscribe(terms, wider, await walletOf(payer).signTypedData(typedData)))).toBe("PermitMismatch")
    }
    // Signed by someone else than the payer the terms name: Permit2 refuses it.
    expect(await refusal(operator, subscriptionCalls.subscribe(terms, permit, (await sign(terms, stranger)).signature))).toBe("InvalidSigner")
    expect((await call(operator, vault, subscriptionCalls.subscribe(terms, permit, signature))).status).toBe("success")
    expect(await read.subscription(terms)).toEqual([true, false])
    expect(await refusal(operator, subscriptionCalls.subscribe(terms, permit, signature))).toBe("AlreadySubscribed")

    // Terms that could never be charged, or whose total or end does not fit Permit2's allowance, are refused.
    for (const bad of [
      { receiver: "0x0000000000000000000000000000000000000000" as const },
      { period: 0 },
      { amountPerPeriod: 0n },
      { amountPerPeriod: maxUint160, periods: 2 },
      { period: 2 ** 47, periods: 3 }
    ]) {
      const badTerms = await termsFor(payer, bad)
      expect(await refusal(operator, subscriptionCalls.subscribe(badTerms, permit, signature))).toBe("BadTerms")
    }
  })

  it("a permit someone submitted to Permit2 first does not stop the subscription; a different allowance does", async () => {
    const payer = await newPayer(fee)
    const terms = await termsFor(payer)
    const { permit, signature } = await sign(terms, payer)
    // A watcher of the mempool sends the payer's permit to Permit2 directly, ahead of the operator.
    const frontRun = encodeFunctionData({ abi: TestPermit2.abi, functionName: "permit", args: [payer.address, permit, signature] })
    expect((await call(stranger, permit2Address, frontRun)).status).toBe("success")
    expect((await call(operator, vault, subscriptionCalls.subscribe(terms, permit, signature))).status).toBe("success")
    expect((await charge(terms, 0n, fee)).status).toBe("success")
    expect(await balanceOf(payer.address)).toBe(0n)

    // An allowance other than the permit's (here: revoked after the front-run) leaves Permit2's refusal standing.
    const other = await termsFor(payer)
    const signed = await sign(other, payer)
    const spender = subscriptionSpender(vault, hashOf(other))
    await call(stranger, permit2Address, encodeFunctionData({ abi: TestPermit2.abi, functionName: "permit", args: [payer.address, signed.permit, signed.signature] }))
    await call(payer, permit2Address, encodeFunctionData({ abi: TestPermit2.abi, functionName: "approve", args: [other.token, spender, 0n, 0] }))
    expect(await refusal(operator, subscriptionCalls.subscribe(other, signed.permit, signed.signature))).toBe("InvalidNonce")
    expect(await read.subscription(other)).toEqual([false, false])
  })

  it("the clone moves the payer's tokens for the vault and nobody else", async () => {
    const payer = await newPayer(10n * fee)
    const terms = await subscribed(payer)
    const clone = subscriptionSpender(vault, hashOf(terms))
    const pull = encodeFunctionData({ abi: SubscriptionSpender.abi, functionName: "pull", args: [payer.address, stranger.address, 1n, terms.token] })
    for (const caller of [stranger, operator, payer]) expect(await refusal(caller, pull, clone)).toBe("NotVault")
    const implementation = await client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "implementation" })
    expect(await refusal(stranger, pull, implementation)).toBe("NotVault")
    expect((await call(stranger, clone, pull)).status).toBe("reverted")
    expect(await balanceOf(payer.address)).toBe(10n * fee)
  })

  it("the spender computed off chain is the clone the vault deploys, an EIP-1167 proxy of its implementation", async () => {
    const payer = await newPayer(fee)
    const terms = await termsFor(payer)
    const hash = hashOf(terms)
    const spender = subscriptionSpender(vault, hash)
    expect(await client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "termsHash", args: [terms] })).toBe(hash)
    expect(await client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "spenderOf", args: [hash] })).toBe(spender)
    expect(await client.getCode({ address: spender })).toBeUndefined()
    const { permit, signature } = await sign(terms, payer)
    expect(permit.spender).toBe(spender)
    const receipt = await call(operator, vault, subscriptionCalls.subscribe(terms, permit, signature))
    const [event] = parseEventLogs({ abi: SubscriptionVault.abi, eventName: "Subscribed", logs: receipt.logs })
    expect(event!.args).toEqual({ termsHash: hash, payer: payer.address, spender })
    const implementation = await client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "implementation" })
    expect(implementation).toBe(getContractAddress({ from: vault, nonce: 1n }))
    expect(await client.getCode({ address: spender })).toBe(
      concat(["0x363d3d373d3d3d363d73", implementation.toLowerCase() as Hex, "0x5af43d82803e903d91602b57fd5bf3"])
    )
  })
})
