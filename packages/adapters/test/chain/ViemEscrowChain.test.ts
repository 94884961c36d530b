/**
 * Held payments on the local chain's PaymentEscrow (anvil), one chain for the file: the catalog names
 * the escrow on EIP-3009 tokens only; the wallet action is the ReceiveWithAuthorization to the escrow,
 * which the wallet signs as is and the gateway verifies (refusing other terms), submits through the
 * escrow's `authorize`, finds used, and observes paying the escrow; then the `EscrowChain` port
 * captures in parts (a stale capture refused), voids, reads the balance and the chain's time, and
 * observes its own transactions.
 */
import {
  type Action,
  ChainGateway,
  type EscrowedPayment,
  EscrowChain,
  EscrowTerms,
  type OptionClaims,
  type PaymentProof,
  SubmissionRefused,
  WalletActions
} from "@paygate/domain"
import { Context, Duration, Effect, Exit, Layer, Option, Schedule, Scope } from "effect"
import { type Address, createPublicClient, type Hex, http, type PublicClient } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainAssetCatalog from "../../src/chain/ChainAssetCatalog.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { PaymentEscrow, TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as Eip155WalletActions from "../../src/chain/Eip155WalletActions.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import { escrowCalls } from "../../src/chain/PaymentEscrow.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import * as ViemChainGateway from "../../src/chain/ViemChainGateway.ts"
import * as ViemEscrowChain from "../../src/chain/ViemEscrowChain.ts"
import { randomNonce, testGatewayOptions } from "./support/ChainTest.ts"
import { sendCall } from "../../../../test/support/Permit2Payer.ts"

const scope = Effect.runSync(Scope.make())
let chain: LocalChain.LocalChainInfo
let client: PublicClient
let gateway: ChainGateway["Service"]
let actions: WalletActions["Service"]
let escrowChain: EscrowChain["Service"]

const payer = anvilAccount(5)
const receiver = anvilAccount(7)

beforeAll(async () => {
  const context = await Effect.runPromise(Layer.buildWithScope(
    Layer.mergeAll(ViemChainGateway.layerWith(testGatewayOptions), Eip155WalletActions.layer, ViemEscrowChain.layerWith(testGatewayOptions)).pipe(
      Layer.provideMerge(LocalChain.layer()),
      Layer.provideMerge(SignatureRecovery.layerInline)
    ),
    scope
  ))
  chain = Context.get(context, LocalChain.LocalChain)
  gateway = Context.get(context, ChainGateway)
  actions = Context.get(context, WalletActions)
  escrowChain = Context.get(context, EscrowChain)
  client = createPublicClient({ transport: http(chain.node.rpcUrl) }) as PublicClient
}, 120_000)
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))
const nowSeconds = () => Math.floor(Date.now() / 1000)
const balanceOf = (address: Address) =>
  client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })

/** Polls `observe` until it is not `pending` (at most 10 s). */
const settled = (observe: Effect.Effect<string>) =>
  run(observe.pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (outcome) => outcome !== "pending" }),
    Effect.timeoutOrElse({ duration: Duration.seconds(10), orElse: () => Effect.succeed("pending") })
  ))

/** A held payment's quote: its claims (with their escrow terms) and its authorization's deadline. */
const quote = (value: bigint) => {
  const terms = { receiver: receiver.address, captureBefore: nowSeconds() + 3_600, refundBefore: nowSeconds() + 86_400 }
  const claims: OptionClaims = {
    paymentId: "pay_held",
    account: `${chain.chainId}:${payer.address}`,
    asset: chain.usdcAssetId,
    value: value.toString(),
    expiresAt: null,
    kind: "pull",
    nonce: randomNonce(),
    quotedAt: nowSeconds(),
    escrow: terms
  }
  return { claims, terms, validBefore: nowSeconds() + 600 }
}

/** The wallet's side: anvil signs the action's typed data as is (the payer is one of its unlocked accounts). */
const signAction = async (action: Action | undefined) => {
  if (action?.type !== "walletRpc") throw new Error("expected a walletRpc action")
  const request = client.request as (args: { method: string; params: ReadonlyArray<unknown> }) => Promise<unknown>
  return (await request({ method: action.data.method, params: action.data.params })) as Hex
}

/** A quote for `value`, signed through its wallet action; answers the confirm's proof. */
const signedProof = async (value: bigint) => {
  const { claims, terms, validBefore } = quote(value)
  const [action] = await run(actions.actionsFor(claims, "opt_held", validBefore))
  const signature = await signAction(action)
  return {
    _tag: "Authorization",
    account: claims.account,
    asset: claims.asset,
    to: chain.contracts.paymentEscrow,
    value,
    validBefore,
    nonce: claims.nonce,
    signature,
    escrow: new EscrowTerms(terms)
  } satisfies PaymentProof
}

/** The escrow's view of a proof, for the `EscrowChain` port. */
const paymentOf = (proof: Awaited<ReturnType<typeof signedProof>>): EscrowedPayment => ({
  asset: proof.asset,
  account: proof.account,
  authorizeBefore: proof.validBefore,
  salt: proof.nonce,
  terms: proof.escrow
})

/** A proof verified, submitted and observed paying the escrow; answers it. */
const held = async (value: bigint) => {
  const proof = await signedProof(value)
  await run(gateway.verify(proof))
  const hash = await run(gateway.submit(proof))
  expect(await settled(gateway.observe(proof.asset, hash, `${chain.chainId}:${chain.contracts.paymentEscrow}`))).toBe("succeeded")
  return proof
}

describe("Held payments", () => {
  it("the local chain configures its escrow, and the catalog names it on EIP-3009 tokens only", async () => {
    expect(await client.getCode({ address: chain.contracts.paymentEscrow })).not.toBe("0x")
    const settings = LocalChain.settingsFor(chain, 1, { usdt: true, native: true })
    expect(settings.chains[0]!.paymentEscrow).toBe(chain.contracts.paymentEscrow)
    const chains = await run(ChainConfig.decode(settings))
    const configured = chains.settings.chains[0]!
    const escrows = chains.settings.assets.map((asset) => [asset.symbol, ChainAssetCatalog.toPayableAsset(asset, configured).escrowAddress])
    expect(escrows).toEqual([["TUSDC", chain.contracts.paymentEscrow], ["TUSDT", undefined], ["TETH", undefined]])
    const { paymentEscrow: _, ...withoutEscrow } = configured
    expect(ChainAssetCatalog.toPayableAsset(chains.settings.assets[0]!, withoutEscrow).escrowAddress).toBeUndefined()
  })

  it("the wallet action is the ReceiveWithAuthorization to the escrow, its nonce the terms' hash", async () => {
    const { claims, terms, validBefore } = quote(2_000_000n)
    const [action, ...rest] = await run(actions.actionsFor(claims, "opt_held", validBefore))
    expect(rest).toEqual([])
    if (action?.type !== "walletRpc") throw new Error("expected a walletRpc action")
    expect(action.data.method).toBe("eth_signTypedData_v4")
    const typedData = JSON.parse(String(action.data.params[1]))
    expect(typedData.primaryType).toBe("ReceiveWithAuthorization")
    expect(Object.keys(typedData.types)).toEqual(["EIP712Domain", "ReceiveWithAuthorization"])
    const hash = await client.readContract({
      address: chain.contracts.paymentEscrow,
      abi: PaymentEscrow.abi,
      functionName: "termsHash",
      args: [{
        operator: chain.executorAddress,
        payer: payer.address,
        receiver: receiver.address,
        token: chain.contracts.usdc,
        authorizeBefore: BigInt(validBefore),
        captureBefore: BigInt(terms.captureBefore),
        refundBefore: BigInt(terms.refundBefore),
        salt: claims.nonce as Hex
      }]
    })
    expect(typedData.message).toEqual({ from: payer.address, to: chain.contracts.paymentEscrow, value: "2000000", validAfter: 0, validBefore, nonce: hash })
  })

  it("the gateway verifies the signed authorization, refuses other terms, submits it through the escrow and finds it used", async () => {
    const proof = await signedProof(5_000_000n)
    const before = await balanceOf(payer.address)
    // Any term other than those signed is another message: not the payer's signature.
    const changed: ReadonlyArray<PaymentProof> = [
      { ...proof, escrow: new EscrowTerms({ ...proof.escrow, receiver: anvilAccount(8).address }) },
      { ...proof, escrow: new EscrowTerms({ ...proof.escrow, captureBefore: proof.escrow.captureBefore + 1 }) },
      { ...proof, escrow: new EscrowTerms({ ...proof.escrow, refundBefore: proof.escrow.refundBefore - 1 }) },
      { ...proof, nonce: randomNonce() },
      { ...proof, validBefore: proof.validBefore + 1 },
      { ...proof, value: proof.value + 1n }
    ]
    for (const other of changed) {
      expect((await failure(gateway.verify(other))).message).toBe("The signature was not made by the option's account.")
    }
    expect((await failure(gateway.verify({ ...proof, to: chain.collectionAddress }))).message).toBe("The payment's recipient is not the chain's payment escrow.")
    expect((await failure(gateway.verify({ ...proof, escrow: new EscrowTerms({ ...proof.escrow, captureBefore: proof.escrow.refundBefore + 1 }) }))).message)
      .toBe("The payment's escrow terms are not valid: the capture deadline is after the refund deadline.")
    expect((await failure(gateway.verify({ ...proof, escrow: new EscrowTerms({ ...proof.escrow, captureBefore: nowSeconds() - 1 }) }))).message)
      .toBe("The payment's capture deadline has passed.")
    // Without its terms, the same signature is no TransferWithAuthorization to the collection address either.
    const { escrow: _, ...plain } = proof
    expect((await failure(gateway.verify({ ...plain, to: chain.collectionAddress }))).message).toBe("The signature was not made by the option's account.")

    await run(gateway.verify(proof))
    expect(await run(gateway.usedBy(proof))).toEqual(Option.none())
    const hash = await run(gateway.submit(proof))
    expect(await settled(gateway.observe(proof.asset, hash, `${chain.chainId}:${chain.contracts.paymentEscrow}`))).toBe("succeeded")
    // The transfer went to the escrow, not to the collection address.
    expect(await settled(gateway.observe(proof.asset, hash))).toBe("failed")
    expect(await balanceOf(payer.address)).toBe(before - 5_000_000n)
    expect(await run(gateway.usedBy(proof))).toEqual(Option.some(hash))
    // Submitted again (a retry after a lost answer): the transaction that used it, nothing sent.
    expect(await run(gateway.submit(proof))).toBe(hash)
    expect(await run(gateway.expiredOnChain(proof))).toBe(false)
    expect(await run(escrowChain.balance(paymentOf(proof)))).toEqual({ held: 5_000_000n, captured: 0n })
  })

  it("captures in parts, each with what was captured before it; a stale capture is refused and sends nothing", async () => {
    const proof = await held(9_000_000n)
    const payment = paymentOf(proof)
    const start = await balanceOf(receiver.address)
    const first = await run(escrowChain.capture(payment, 4_000_000n, 0n))
    expect(await settled(escrowChain.observe(proof.asset, first))).toBe("succeeded")
    expect(await run(escrowChain.balance(payment))).toEqual({ held: 5_000_000n, captured: 4_000_000n })
    // The same capture again (a retry of one that was mined after all): stale.
    const stale = await failure(escrowChain.capture(payment, 4_000_000n, 0n))
    expect(stale).toBeInstanceOf(SubmissionRefused)
    expect(stale.message).toMatch(/^the escrow refuses capture: Stale$/)
    expect((await failure(escrowChain.capture(payment, 5_000_001n, 4_000_000n))).message).toBe("the escrow refuses capture: TooMuch")
    const rest = await run(escrowChain.capture(payment, 5_000_000n, 4_000_000n))
    expect(await settled(escrowChain.observe(proof.asset, rest))).toBe("succeeded")
    expect(await run(escrowChain.balance(payment))).toEqual({ held: 0n, captured: 9_000_000n })
    expect(await balanceOf(receiver.address)).toBe(start + 9_000_000n)
    expect((await failure(escrowChain.void(payment))).message).toBe("the escrow refuses void: NothingHeld")
  })

  it("a void gives the rest back to the payer; the balance and the chain's time are read", async () => {
    const proof = await held(3_000_000n)
    const payment = paymentOf(proof)
    expect(await settled(escrowChain.observe(proof.asset, await run(escrowChain.capture(payment, 1_000_000n, 0n))))).toBe("succeeded")
    const before = await balanceOf(payer.address)
    const voided = await run(escrowChain.void(payment))
    expect(await settled(escrowChain.observe(proof.asset, voided))).toBe("succeeded")
    expect(await balanceOf(payer.address)).toBe(before + 2_000_000n)
    expect(await run(escrowChain.balance(payment))).toEqual({ held: 0n, captured: 1_000_000n })
    expect((await failure(escrowChain.capture(payment, 1n, 1_000_000n))).message).toBe("the escrow refuses capture: NothingHeld")
    const latest = Number((await client.getBlock()).timestamp)
    expect(await run(escrowChain.chainTime(proof.asset))).toBeGreaterThanOrEqual(latest)
    // A payment never authorized holds nothing.
    expect(await run(escrowChain.balance({ ...payment, salt: randomNonce() }))).toEqual({ held: 0n, captured: 0n })
  })

  it("observe: a reverted transaction failed; an unknown hash or asset is not known", async () => {
    const proof = await held(1_000_000n)
    const payment = paymentOf(proof)
    // A stale capture sent anyway (by another hand, as the executor): mined, reverted.
    const hash = await run(escrowChain.capture(payment, 1_000_000n, 0n))
    expect(await settled(escrowChain.observe(proof.asset, hash))).toBe("succeeded")
    const terms = {
      operator: chain.executorAddress,
      payer: payer.address,
      receiver: receiver.address,
      token: chain.contracts.usdc,
      authorizeBefore: BigInt(proof.validBefore),
      captureBefore: BigInt(proof.escrow.captureBefore),
      refundBefore: BigInt(proof.escrow.refundBefore),
      salt: proof.nonce as Hex
    }
    const receipt = await sendCall(chain.node.rpcUrl, anvilAccount(0), chain.contracts.paymentEscrow, escrowCalls.capture(terms, 1n, 0n))
    expect(receipt.status).toBe("reverted")
    expect(await settled(escrowChain.observe(proof.asset, receipt.transactionHash))).toBe("failed")
    expect(await run(escrowChain.observe("eip155:1/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3", hash))).toBe("unknown")
    expect(await run(escrowChain.observe(proof.asset, "0x1234"))).toBe("unknown")
    // A chain without an escrow refuses, and cannot be read for it.
    const refused = await failure(escrowChain.capture({ ...payment, asset: "eip155:1/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3" }, 1n, 0n))
    expect(refused.message).toBe("asset eip155:1/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3 is not configured")
  })
})
