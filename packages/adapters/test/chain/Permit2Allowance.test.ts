/**
 * Permit2's allowance half in `TestPermit2` on anvil, as the real Permit2 behaves: a signed `PermitSingle`
 * (hashed as `@uniswap/permit2-sdk` hashes it) sets an allowance once, with the owner's current nonce, before
 * its deadline, from its signer only; `transferFrom` spends it down (not the unlimited amount) until it
 * expires; `approve`, `lockdown` and `invalidateNonces` let the owner revoke without the spender.
 */
import type { AllowanceTransfer as SdkAllowanceTransfer } from "@uniswap/permit2-sdk"
import { Effect, Exit, Scope } from "effect"
import { fileURLToPath } from "node:url"
import {
  type Address,
  encodeFunctionData,
  hashTypedData,
  type Hex,
  maxUint160,
  maxUint256,
  parseSignature,
  type PublicClient,
  serializeCompactSignature,
  signatureToCompactSignature
} from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { TestPermit2, TestSmartWallet, TestUsdc } from "../../src/chain/contracts.generated.ts"
import type * as LocalChain from "../../src/chain/LocalChain.ts"
import { permit2Address, type PermitSingle, permitSingleTypedData } from "../../src/chain/Permit2.ts"
import { refusalOf, startLocalChain, walletOn } from "./support/LocalChainFile.ts"
import { sendCall } from "../../../../test/support/Permit2Payer.ts"

// The package's index also loads its allowance providers, which need `tslib` (not installed here).
const sdkModule = fileURLToPath(new URL("../../../../node_modules/@uniswap/permit2-sdk/dist/esm/src/allowanceTransfer.js", import.meta.url))
const { AllowanceTransfer } = (await import(sdkModule)) as { readonly AllowanceTransfer: typeof SdkAllowanceTransfer }

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient

const owner = anvilAccount(6)
const spender = anvilAccount(5)
const receiver = anvilAccount(7)
const stranger = anvilAccount(8)
type Account = typeof owner

const walletOf = (from: Account) => walletOn(chain, from)

beforeAll(async () => {
  ;({ chain, client } = await startLocalChain(scope))
  // Allowances pull tokens the owner approved to Permit2, once.
  await call(owner, chain.contracts.usdc, encodeFunctionData({ abi: TestUsdc.abi, functionName: "approve", args: [permit2Address, maxUint256] }))
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** Sends `data` to `to`; answers the receipt (reverted ones too: the gas is fixed, nothing estimated). */
const call = (from: Account, to: Address, data: Hex) => sendCall(chain.node.rpcUrl, from, to, data)
/** Permit2's custom error (with its arguments) `data` would revert with, from `from` (null when it would succeed). */
const refusal = (from: Account, data: Hex) => refusalOf(client, TestPermit2.abi, from.address, permit2Address, data)
const abi = TestPermit2.abi
const calls = {
  permit: (permit: PermitSingle, signature: Hex, from: Address = owner.address) =>
    encodeFunctionData({ abi, functionName: "permit", args: [from, permit, signature] }),
  transferFrom: (amount: bigint, from: Address = owner.address) =>
    encodeFunctionData({ abi, functionName: "transferFrom", args: [from, receiver.address, amount, chain.contracts.usdc] }),
  approve: (to: Address, amount: bigint, expiration: number) =>
    encodeFunctionData({ abi, functionName: "approve", args: [chain.contracts.usdc, to, amount, expiration] }),
  lockdown: (to: Address) => encodeFunctionData({ abi, functionName: "lockdown", args: [[{ token: chain.contracts.usdc, spender: to }]] }),
  invalidateNonces: (to: Address, newNonce: number) =>
    encodeFunctionData({ abi, functionName: "invalidateNonces", args: [chain.contracts.usdc, to, newNonce] })
}
const allowance = async (to: Address = spender.address, from: Address = owner.address) => {
  const [amount, expiration, nonce] = await client.readContract({
    address: permit2Address,
    abi,
    functionName: "allowance",
    args: [from, chain.contracts.usdc, to]
  })
  return { amount, expiration, nonce }
}
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
const now = async () => Number((await client.getBlock()).timestamp)
const mineAt = (timestamp: number) => client.request({ method: "evm_mine" as never, params: [timestamp] as never })
const nextBlockAt = (timestamp: number) => client.request({ method: "evm_setNextBlockTimestamp" as never, params: [timestamp] as never })

/** A permit for `to` (the spender unless told) with the owner's current nonce, signature usable for an hour. */
const permitFor = async (overrides: Partial<PermitSingle["details"]> = {}, to: Address = spender.address): Promise<PermitSingle> => {
  const t = await now()
  return {
    details: { token: chain.contracts.usdc, amount: 1_000_000n, expiration: t + 86_400, nonce: (await allowance(to)).nonce, ...overrides },
    spender: to,
    sigDeadline: BigInt(t + 3_600)
  }
}
const sign = (permit: PermitSingle, signer: Account = owner) => walletOf(signer).signTypedData(permitSingleTypedData(chain.node.chainId, permit))
const permitted = async (overrides: Partial<PermitSingle["details"]> = {}) => {
  const permit = await permitFor(overrides)
  expect((await call(spender, permit2Address, calls.permit(permit, await sign(permit)))).status).toBe("success")
  return permit
}

describe("Permit2 allowances (TestPermit2)", () => {
  it("hashes a PermitSingle as @uniswap/permit2-sdk does", () => {
    const permit: PermitSingle = {
      details: { token: "0xdAC17F958D2ee523a2206206994597C13D831ec7", amount: 12_000_000n, expiration: 1_790_000_000, nonce: 3 },
      spender: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      sigDeadline: 1_780_000_000n
    }
    const sdkPermit = { ...permit, details: { ...permit.details, amount: permit.details.amount.toString() }, sigDeadline: permit.sigDeadline.toString() }
    expect(hashTypedData(permitSingleTypedData(137, permit))).toBe(AllowanceTransfer.hash(sdkPermit, permit2Address, 137))
  })

  it("a signed permit sets the allowance once, with the current nonce, before its deadline, from its signer only", async () => {
    const permit = await permitFor()
    const signature = await sign(permit)
    expect(await refusal(spender, calls.permit(permit, await sign(permit, stranger)))).toBe("InvalidSigner")
    expect(await refusal(spender, calls.permit(permit, signature, stranger.address))).toBe("InvalidSigner")
    expect(await refusal(spender, calls.permit(permit, signature.slice(0, 40) as Hex))).toBe("InvalidSignatureLength")
    expect(await refusal(spender, calls.permit({ ...permit, details: { ...permit.details, amount: 1_000_001n } }, signature))).toBe("InvalidSigner")
    // Anyone may submit it: the spender named in it is who gets the allowance.
    expect((await call(stranger, permit2Address, calls.permit(permit, signature))).status).toBe("success")
    expect(await allowance()).toEqual({ amount: 1_000_000n, expiration: permit.details.expiration, nonce: permit.details.nonce + 1 })
    expect(await refusal(spender, calls.permit(permit, signature))).toBe("InvalidNonce")
    // A new signature with the spent nonce is refused too; with the next one it replaces the allowance.
    const old = { ...permit, details: { ...permit.details, amount: 5n } }
    expect(await refusal(spender, calls.permit(old, await sign(old)))).toBe("InvalidNonce")
    const next = await permitted({ amount: 7n, expiration: 0 })
    expect(await allowance()).toEqual({ amount: 7n, expiration: await now(), nonce: next.details.nonce + 1 })

    const expired = await permitFor()
    const late = await sign(expired)
    await mineAt(Number(expired.sigDeadline) + 1)
    expect(await refusal(spender, calls.permit(expired, late))).toBe(`SignatureExpired(${expired.sigDeadline})`)
  })

  it("compact (EIP-2098) signatures and contract wallets (EIP-1271) sign permits too", async () => {
    const permit = await permitFor({ amount: 42n })
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(await sign(permit))))
    expect((await call(spender, permit2Address, calls.permit(permit, compact))).status).toBe("success")
    expect((await allowance()).amount).toBe(42n)

    const hash = await walletOf(owner).deployContract({ chain: null, abi: TestSmartWallet.abi, bytecode: TestSmartWallet.bytecode, args: [owner.address] })
    const smartWallet = (await client.waitForTransactionReceipt({ hash })).contractAddress!
    const forWallet = await permitFor({ amount: 43n, nonce: 0 })
    expect(await refusal(spender, calls.permit(forWallet, await sign(forWallet, stranger), smartWallet))).toBe("InvalidContractSignature")
    expect((await call(spender, permit2Address, calls.permit(forWallet, await sign(forWallet), smartWallet))).status).toBe("success")
    expect(await allowance(spender.address, smartWallet)).toEqual({ amount: 43n, expiration: forWallet.details.expiration, nonce: 1 })
  })

  it("transferFrom spends the allowance down, only for its spender, until it expires; the unlimited amount stays", async () => {
    await permitted({ amount: 1_000_000n })
    const before = await balanceOf(receiver.address)
    expect((await call(spender, permit2Address, calls.transferFrom(600_000n))).status).toBe("success")
    expect((await allowance()).amount).toBe(400_000n)
    expect(await refusal(spender, calls.transferFrom(400_001n))).toBe("InsufficientAllowance(400000)")
    expect((await call(spender, permit2Address, calls.transferFrom(400_000n))).status).toBe("success")
    expect(await balanceOf(receiver.address)).toBe(before + 1_000_000n)
    expect(await refusal(spender, calls.transferFrom(1n))).toBe("InsufficientAllowance(0)")
    // Nobody else may spend it (their own allowance from the owner has never been set: expired at 0).
    await permitted({ amount: 1_000n })
    expect(await refusal(stranger, calls.transferFrom(1n))).toBe("AllowanceExpired(0)")
    // Not from someone who gave the spender nothing either.
    expect(await refusal(spender, calls.transferFrom(1n, stranger.address))).toBe("AllowanceExpired(0)")

    const unlimited = await permitted({ amount: maxUint160 })
    expect((await call(spender, permit2Address, calls.transferFrom(2_000_000n))).status).toBe("success")
    expect((await allowance()).amount).toBe(maxUint160)
    // Usable up to and including its expiration second, not after.
    await nextBlockAt(unlimited.details.expiration)
    expect((await call(spender, permit2Address, calls.transferFrom(1n))).status).toBe("success")
    await mineAt(unlimited.details.expiration + 1)
    expect(await refusal(spender, calls.transferFrom(1n))).toBe(`AllowanceExpired(${unlimited.details.expiration})`)
  })

  it("approve sets amount and expiration and keeps the nonce; approve(0) and lockdown revoke", async () => {
    await permitted({ amount: 1_000_000n })
    const { nonce } = await allowance()
    const t = await now()
    expect((await call(owner, permit2Address, calls.approve(spender.address, 300n, t + 1_000))).status).toBe("success")
    expect(await allowance()).toEqual({ amount: 300n, expiration: t + 1_000, nonce })
    expect((await call(spender, permit2Address, calls.transferFrom(100n))).status).toBe("success")

    expect((await call(owner, permit2Address, calls.approve(spender.address, 0n, 0))).status).toBe("success")
    const revoked = await allowance()
    expect(revoked).toEqual({ amount: 0n, expiration: await now(), nonce })
    await mineAt((await now()) + 1)
    expect(await refusal(spender, calls.transferFrom(1n))).toBe(`AllowanceExpired(${revoked.expiration})`)

    await permitted({ amount: 1_000_000n })
    expect((await call(owner, permit2Address, calls.lockdown(spender.address))).status).toBe("success")
    expect((await allowance()).amount).toBe(0n)
    expect(await refusal(spender, calls.transferFrom(1n))).toBe("InsufficientAllowance(0)")
  })

  it("invalidateNonces burns unused permits: forward only, at most 65,535 at a time", async () => {
    const permit = await permitFor()
    const signature = await sign(permit)
    const current = permit.details.nonce
    expect(await refusal(owner, calls.invalidateNonces(spender.address, current))).toBe("InvalidNonce")
    expect(await refusal(owner, calls.invalidateNonces(spender.address, current + 65_536))).toBe("ExcessiveInvalidation")
    expect((await call(owner, permit2Address, calls.invalidateNonces(spender.address, current + 65_535))).status).toBe("success")
    expect((await allowance()).nonce).toBe(current + 65_535)
    expect(await refusal(spender, calls.permit(permit, signature))).toBe("InvalidNonce")
    expect(await refusal(owner, calls.invalidateNonces(spender.address, current + 1))).toBe("InvalidNonce")
  })
})
