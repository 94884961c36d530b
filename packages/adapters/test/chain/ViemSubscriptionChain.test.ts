/**
 * The domain's `SubscriptionChain` port over the local chain's SubscriptionVault (anvil): the permit a
 * payer signs and its check, subscribing, charging each period once (with time travel), the refusals a
 * charge is sorted into (charged, short of funds, revoked in Permit2 or at the token, closed), cancelling, and a chain
 * without a vault, which refuses everything.
 */
import {
  ChainUnavailable,
  ChargeRefused,
  ParamsValidation,
  SubmissionRefused,
  SubscriptionChain,
  SubscriptionTerms
} from "@paygate/domain"
import { Context, Duration, Effect, Exit, Layer, Schedule, Scope } from "effect"
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  type PublicClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { SubscriptionVault, TestPermit2, TestSmartWallet, TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import { permit2Address } from "../../src/chain/Permit2.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import { subscriptionSpender, subscriptionTermsHash } from "../../src/chain/SubscriptionVault.ts"
import * as ViemSubscriptionChain from "../../src/chain/ViemSubscriptionChain.ts"
import { newPermit2Payer, sendCall, type TestAccount } from "../../../../test/support/Permit2Payer.ts"

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient
let port: SubscriptionChain["Service"]

const receiver = anvilAccount(7)
const funder = anvilAccount(8)
type Account = TestAccount

const month = 30 * 86_400
const fee = 10_000_000n
const options = { rpcTimeout: Duration.seconds(2), observeTimeout: Duration.seconds(3) }

beforeAll(async () => {
  const context = await Effect.runPromise(Layer.buildWithScope(
    ViemSubscriptionChain.layerWith(options).pipe(
      Layer.provideMerge(LocalChain.layer()),
      Layer.provideMerge(SignatureRecovery.layerInline)
    ),
    scope
  ))
  chain = Context.get(context, LocalChain.LocalChain)
  port = Context.get(context, SubscriptionChain)
  client = createPublicClient({ transport: http(chain.node.rpcUrl) }) as PublicClient
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
/** The failure of `effect`, which must fail. */
const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))

const walletOf = (from: Account) => createWalletClient({ account: privateKeyToAccount(from.privateKey), transport: http(chain.node.rpcUrl) })
const call = (from: Account, to: Address, data: Hex) => sendCall(chain.node.rpcUrl, from, to, data)
const topUp = (payer: Account, value: bigint) =>
  call(funder, chain.contracts.usdc, encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [payer.address, value] }))
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
const now = async () => Number((await client.getBlock()).timestamp)
const increaseTime = async (seconds: number) => {
  await client.request({ method: "evm_increaseTime" as never, params: [seconds] as never })
  await client.request({ method: "evm_mine" as never, params: [] as never })
}
/** A signature deadline an hour ahead, of the chain's clock (ahead after time travel) and of the wall's. */
const sigDeadline = async () => Math.max(await now(), Math.floor(Date.now() / 1000)) + 3_600

/** `owner` (an account, or a contract anvil sends for) approves Permit2 to move `value` TUSDC. */
const approvePermit2 = async (owner: Address, value: bigint) => {
  await client.request({ method: "anvil_impersonateAccount" as never, params: [owner] as never })
  await client.request({ method: "anvil_setBalance" as never, params: [owner, "0x8ac7230489e80000"] as never })
  const data = encodeFunctionData({ abi: TestUsdc.abi, functionName: "approve", args: [permit2Address, value] })
  const hash = await client.request({ method: "eth_sendTransaction" as never, params: [{ from: owner, to: chain.contracts.usdc, data }] as never }) as Hex
  await client.waitForTransactionReceipt({ hash })
  await client.request({ method: "anvil_stopImpersonatingAccount" as never, params: [owner] as never })
}

/** A new buyer with `funds` TUSDC, gas, and Permit2 approved on TUSDC (as a wallet does once). */
const newPayer = (funds: bigint) => newPermit2Payer(chain, funder, funds)
const caip10 = (address: Address) => `${chain.chainId}:${address}`
/** Terms for `payer`: 10 TUSDC a month for a year, from now. */
const termsFor = async (payer: Address, overrides: Partial<SubscriptionTerms> = {}) =>
  new SubscriptionTerms({
    payer: caip10(payer),
    receiver: caip10(receiver.address),
    asset: chain.usdcAssetId,
    amountPerPeriod: fee,
    periodSeconds: month,
    start: await now(),
    periods: 12,
    salt: `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`,
    ...overrides
  })

/** The clone holding the allowance of `terms` (made by {@link termsFor} for `payer`), computed as the contract does. */
const cloneOf = (terms: SubscriptionTerms, payer: Address) => {
  const vault = chain.contracts.subscriptionVault
  return subscriptionSpender(vault, subscriptionTermsHash(chain.node.chainId, vault, {
    operator: chain.executorAddress,
    payer,
    receiver: receiver.address,
    token: chain.contracts.usdc,
    amountPerPeriod: terms.amountPerPeriod,
    period: terms.periodSeconds,
    start: terms.start,
    periods: terms.periods ?? 0,
    salt: terms.salt as Hex
  }))
}

/** The typed data of `eth_signTypedData_v4`'s JSON, as viem signs it (decimal strings back to integers). */
const fromWalletJson = (json: string) => {
  const { types: { EIP712Domain: _, ...types }, domain, primaryType, message } = JSON.parse(json)
  return {
    domain,
    types,
    primaryType,
    message: { ...message, details: { ...message.details, amount: BigInt(message.details.amount) }, sigDeadline: BigInt(message.sigDeadline) }
  }
}
/** The payer's (or `signer`'s) signature of the permit for `terms`. */
const sign = async (terms: SubscriptionTerms, signer: Account, deadline: number) =>
  walletOf(signer).signTypedData(fromWalletJson(await run(port.permitTypedData(terms, deadline))))

/** Observes until the outcome is not `pending` (at most 10 s). */
const settled = (terms: SubscriptionTerms, hash: string) =>
  run(port.observe(terms, hash).pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (outcome) => outcome !== "pending" }),
    Effect.timeoutOrElse({ duration: Duration.seconds(10), orElse: () => Effect.succeed("pending" as const) })
  ))
/** Subscribes `payer` under fresh terms; answers them once the vault holds them. */
const subscribed = async (payer: Account, overrides: Partial<SubscriptionTerms> = {}) => {
  const terms = await termsFor(payer.address, overrides)
  const deadline = await sigDeadline()
  const signature = await sign(terms, payer, deadline)
  expect(await settled(terms, await run(port.subscribe(terms, deadline, signature)))).toBe("succeeded")
  return terms
}
const charged = async (terms: SubscriptionTerms, periodIndex: number, amount: bigint) =>
  settled(terms, await run(port.charge(terms, periodIndex, amount)))
const chargeRefusal = async (terms: SubscriptionTerms, periodIndex: number, amount: bigint) => {
  const error = await failure(port.charge(terms, periodIndex, amount))
  expect(error).toBeInstanceOf(ChargeRefused)
  return (error as ChargeRefused).reason
}

describe("ViemSubscriptionChain", () => {
  it("the local chain deploys a SubscriptionVault over Permit2's canonical address and configures it", async () => {
    const vault = chain.contracts.subscriptionVault
    expect(await client.readContract({ address: vault, abi: SubscriptionVault.abi, functionName: "permit2" })).toBe(permit2Address)
    const settings = LocalChain.settingsFor(chain, 1).chains[0]!
    expect(settings.subscriptionVault).toBe(vault)
  })

  it("the permit's typed data, signed by the payer, verifies; a stranger's signature and a past sigDeadline are refused", async () => {
    const payer = await newPayer(0n)
    const terms = await termsFor(payer.address)
    const deadline = await sigDeadline()
    const json = await run(port.permitTypedData(terms, deadline))
    const typedData = JSON.parse(json)
    expect(typedData.domain).toEqual({ name: "Permit2", chainId: chain.node.chainId, verifyingContract: permit2Address })
    expect(typedData.message).toEqual({
      details: { token: chain.contracts.usdc, amount: (12n * fee).toString(), expiration: terms.start + 12 * month, nonce: 0 },
      spender: cloneOf(terms, payer.address),
      sigDeadline: String(deadline)
    })

    await run(port.verifyPermit(terms, deadline, await sign(terms, payer, deadline)))
    const stranger = await failure(port.verifyPermit(terms, deadline, await sign(terms, anvilAccount(5), deadline)))
    expect(stranger).toEqual(new ParamsValidation({ message: "The permit was not signed by the subscription's payer." }))
    // The payer signed other terms (another amount): not this permit.
    const other = await sign(new SubscriptionTerms({ ...terms, amountPerPeriod: fee + 1n }), payer, deadline)
    expect(await failure(port.verifyPermit(terms, deadline, other))).toBeInstanceOf(ParamsValidation)
    const past = Math.floor(Date.now() / 1000) - 60
    const expired = await failure(port.verifyPermit(terms, past, await sign(terms, payer, past)))
    expect(expired).toEqual(new ParamsValidation({ message: "The permit's sigDeadline has passed." }))

    // Signed, but Permit2 may not move a period's amount: the first charge would fail, so it is refused now.
    await approvePermit2(payer.address, fee - 1n)
    const unapproved = await failure(port.verifyPermit(terms, deadline, await sign(terms, payer, deadline)))
    expect(unapproved).toBeInstanceOf(ParamsValidation)
    expect((unapproved as ParamsValidation).message).toMatch(/not approved Permit2/)
  })

  it("a wallet signs the JSON as it is, and a contract wallet's signature is asked of the wallet (EIP-1271)", async () => {
    // An anvil account signs through the node's own eth_signTypedData_v4, as a browser wallet would.
    const walletPayer = anvilAccount(6)
    const terms = await termsFor(walletPayer.address)
    const deadline = await sigDeadline()
    await approvePermit2(walletPayer.address, maxUint256)
    const json = await run(port.permitTypedData(terms, deadline))
    const signature = await client.request({ method: "eth_signTypedData_v4" as never, params: [walletPayer.address, json] as never }) as Hex
    await run(port.verifyPermit(terms, deadline, signature))

    const owner = anvilAccount(3)
    const deployed = await client.waitForTransactionReceipt({
      hash: await walletOf(owner).sendTransaction({
        chain: null,
        data: encodeDeployData({ abi: TestSmartWallet.abi, bytecode: TestSmartWallet.bytecode, args: [owner.address] })
      })
    })
    const contractPayer = deployed.contractAddress!
    const contractTerms = await termsFor(contractPayer)
    await approvePermit2(contractPayer, maxUint256)
    await run(port.verifyPermit(contractTerms, deadline, await sign(contractTerms, owner, deadline)))
    expect(await failure(port.verifyPermit(contractTerms, deadline, await sign(contractTerms, anvilAccount(4), deadline)))).toBeInstanceOf(ParamsValidation)
  })

  it("subscribes, charges a period once, and the next one after a period passes", async () => {
    const payer = await newPayer(12n * fee)
    const terms = await subscribed(payer)
    expect(await run(port.onChain(terms))).toEqual({ subscribed: true, cancelled: false })

    const before = await balanceOf(receiver.address)
    expect(await charged(terms, 0, fee)).toBe("succeeded")
    expect(await balanceOf(receiver.address)).toBe(before + fee)
    expect(await run(port.charged(terms, 0))).toBe(fee)
    // Sent again (a crash before it was recorded): the vault holds the period as charged, nothing is sent.
    expect(await chargeRefusal(terms, 0, fee)).toBe("charged")
    // More than a period's amount is not "charged": it never could be.
    expect(await chargeRefusal(terms, 0, fee + 1n)).toBe("other")
    // The next period, before the chain's clock reaches it: early, tried again shortly.
    expect(await chargeRefusal(terms, 1, fee)).toBe("early")

    await increaseTime(month)
    expect(await charged(terms, 1, fee)).toBe("succeeded")
    expect(await balanceOf(receiver.address)).toBe(before + 2n * fee)
    expect(await run(port.charged(terms, 1))).toBe(fee)
    expect(await run(port.charged(terms, 2))).toBe(0n)

    // Subscribing again (a retry after a crash between sending and recording) names the vault's refusal.
    const deadline = await sigDeadline()
    const again = await failure(port.subscribe(terms, deadline, await sign(terms, payer, deadline)))
    expect(again).toBeInstanceOf(SubmissionRefused)
    expect((again as SubmissionRefused).message).toBe("the vault refuses subscribe: AlreadySubscribed")
  })

  it("a payer short of funds is refused until topped up; a payer who revokes in Permit2 is `revoked`", async () => {
    const payer = await newPayer(fee / 2n)
    const terms = await subscribed(payer)
    expect(await chargeRefusal(terms, 0, fee)).toBe("insufficient_funds")
    expect(await run(port.charged(terms, 0))).toBe(0n)
    await topUp(payer, fee)
    expect(await charged(terms, 0, fee)).toBe("succeeded")
    expect(await balanceOf(payer.address)).toBe(fee / 2n)

    await increaseTime(month)
    const revoke = encodeFunctionData({ abi: TestPermit2.abi, functionName: "approve", args: [chain.contracts.usdc, cloneOf(terms, payer.address), 0n, 0] })
    await call(payer, permit2Address, revoke)
    expect(await chargeRefusal(terms, 1, fee / 2n)).toBe("revoked")
  })

  it("a payer who takes back the token's approval of Permit2 has revoked: `revoked`, not `other`", async () => {
    const payer = await newPayer(2n * fee)
    const terms = await subscribed(payer)
    const unapprove = encodeFunctionData({ abi: TestUsdc.abi, functionName: "approve", args: [permit2Address, 0n] })
    await call(payer, chain.contracts.usdc, unapprove)
    expect(await chargeRefusal(terms, 0, fee)).toBe("revoked")
  })

  it("cancels: the vault holds it cancelled, a charge is `closed`, a second cancel is refused", async () => {
    const payer = await newPayer(12n * fee)
    const terms = await subscribed(payer)
    const cancelTx = await run(port.cancel(terms))
    expect(await settled(terms, cancelTx)).toBe("succeeded")
    expect(await run(port.onChain(terms))).toEqual({ subscribed: true, cancelled: true })
    expect(await chargeRefusal(terms, 0, fee)).toBe("closed")
    const again = await failure(port.cancel(terms))
    expect((again as SubmissionRefused).message).toBe("the vault refuses cancel: SubscriptionCancelled")

    const never = await termsFor(payer.address)
    expect(await run(port.onChain(never))).toEqual({ subscribed: false, cancelled: false })
    expect(await chargeRefusal(never, 0, fee)).toBe("closed")
    // A transaction that is not this subscription's (the cancel of other terms) does not count for it;
    // one the node does not know was dropped.
    expect(await settled(never, cancelTx)).toBe("failed")
    expect(await run(port.observe(terms, `0x${"ab".repeat(32)}`))).toBe("dropped")
  })

  it("a chain without a vault refuses every method, each as its type allows", async () => {
    const { subscriptionVault: _, ...withoutVault } = LocalChain.settingsFor(chain, 1).chains[0]!
    const bare = await run(ViemSubscriptionChain.make(options).pipe(
      Effect.provide(Layer.merge(ChainConfig.layer({ ...LocalChain.settingsFor(chain, 1), chains: [withoutVault] }), SignatureRecovery.layerInline)),
      Effect.scoped
    ))
    const terms = await termsFor(anvilAccount(6).address)
    const message = `subscriptions are not available on ${chain.chainId}: no subscriptionVault is configured`
    const deadline = await sigDeadline()
    expect(await failure(bare.permitTypedData(terms, deadline))).toEqual(new ParamsValidation({ message }))
    expect(await failure(bare.verifyPermit(terms, deadline, "0x00"))).toEqual(new ParamsValidation({ message }))
    expect(await failure(bare.subscribe(terms, deadline, "0x00"))).toEqual(new SubmissionRefused({ chainId: chain.chainId, message }))
    expect(await failure(bare.charge(terms, 0, fee))).toEqual(new ChargeRefused({ chainId: chain.chainId, reason: "other", message }))
    expect(await failure(bare.cancel(terms))).toEqual(new SubmissionRefused({ chainId: chain.chainId, message }))
    expect(await failure(bare.onChain(terms))).toEqual(new ChainUnavailable({ chainId: chain.chainId, message }))
    expect(await failure(bare.charged(terms, 0))).toEqual(new ChainUnavailable({ chainId: chain.chainId, message }))
    expect(await run(bare.observe(terms, `0x${"11".repeat(32)}`))).toBe("unknown")
  })
})
