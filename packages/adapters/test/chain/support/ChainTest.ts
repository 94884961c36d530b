/**
 * Shared pieces of the chain tests: a gateway on a fresh local anvil chain, buyers' wallets (viem
 * local accounts) that sign EIP-3009 authorizations or send push transfers, and on-chain reads.
 */
import { ChainGateway, type ChainOutcome, type PaymentProof } from "@paygate/domain"
import { Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { type Address, bytesToHex, createTestClient, encodeFunctionData, getAddress, type Hex, http, type PublicClient } from "viem"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { anvilAccount } from "../../../src/chain/AnvilAccounts.ts"
import type { ChainsConfig } from "../../../src/chain/ChainConfig.ts"
import { TestUsdc } from "../../../src/chain/contracts.generated.ts"
import { transferWithAuthorizationTypedData } from "../../../src/chain/Eip3009.ts"
import { authorizationCalldata } from "../../../src/chain/SubmitAuthorization.ts"
import * as ExecutorSender from "../../../src/chain/ExecutorSender.ts"
import * as LocalChain from "../../../src/chain/LocalChain.ts"
import { makeClient } from "../../../src/chain/RpcCall.ts"
import * as SignatureRecovery from "../../../src/chain/SignatureRecovery.ts"
import * as ViemChainGateway from "../../../src/chain/ViemChainGateway.ts"
import { fromPrivateKey } from "../../../src/chain/TransactionSigner.ts"

/** Tuning for tests: short windows so that failure paths stay fast. */
export const testGatewayOptions: ViemChainGateway.GatewayOptions = {
  rpcTimeout: Duration.seconds(2),
  observeTimeout: Duration.seconds(3),
  pushLookupWindow: Duration.millis(300)
}

/** What the chain tests use. */
export type ChainTestServices = ChainGateway | LocalChain.LocalChain | ChainsConfig | SignatureRecovery.SignatureRecovery

/** A gateway over a fresh anvil chain with the test contracts deployed. */
export const chainTestLayer = (
  options: LocalChain.LocalChainOptions = {}
): Layer.Layer<ChainTestServices, unknown> =>
  ViemChainGateway.layerWith(testGatewayOptions).pipe(
    Layer.provideMerge(LocalChain.layer(options)),
    Layer.provideMerge(SignatureRecovery.layerWorkers({ size: 2 }))
  )

/** A fresh 32-byte nonce. */
export const randomNonce = (): Hex => bytesToHex(crypto.getRandomValues(new Uint8Array(32)))

/** A viem client for the local chain. */
export const localClient: Effect.Effect<PublicClient, never, LocalChain.LocalChain> = Effect.map(
  LocalChain.LocalChain,
  (chain) => makeClient(Redacted.make(chain.node.rpcUrl))
)

/** A buyer's wallet: anvil account `index` (0–9). */
export const wallet = (index: number): PrivateKeyAccount => privateKeyToAccount(anvilAccount(index).privateKey)

/** What a buyer's authorization may differ in from the option. */
export interface AuthorizationInput {
  readonly payer: PrivateKeyAccount
  /** The paying account when it is not the payer's key (a contract wallet the payer owns). */
  readonly from?: Address
  readonly value: bigint
  /** Who signs; default the payer. */
  readonly signer?: PrivateKeyAccount
  readonly validBefore?: number
  readonly nonce?: Hex
}

/** The proof a wallet gives on confirm: an authorization to pay `value` to the collection address, signed. */
export const signAuthorization = Effect.fn("signAuthorization")(function*(input: AuthorizationInput) {
  const chain = yield* LocalChain.LocalChain
  const validBefore = input.validBefore ?? Math.floor(Date.now() / 1000) + 600
  const nonce = input.nonce ?? randomNonce()
  const typedData = transferWithAuthorizationTypedData(
    { name: "Test USD Coin", version: "2", chainId: chain.node.chainId, verifyingContract: chain.contracts.usdc },
    {
      from: input.from ?? input.payer.address,
      to: chain.collectionAddress,
      value: input.value,
      validAfter: 0n,
      validBefore: BigInt(validBefore),
      nonce
    }
  )
  const signature = yield* Effect.promise(() => (input.signer ?? input.payer).signTypedData(typedData))
  return {
    _tag: "Authorization",
    account: `${chain.chainId}:${input.from ?? input.payer.address}`,
    asset: chain.usdcAssetId,
    to: chain.collectionAddress,
    value: input.value,
    validBefore,
    nonce,
    signature
  } satisfies PaymentProof
})

/** TUSDC balance of `address`. */
export const balanceOf = (address: Address) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const client = yield* localClient
    return yield* Effect.promise(() =>
      client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [address] })
    )
  })

/** Sends a call to TUSDC with `data` from the account of `privateKey` and waits until it is mined; answers the hash. */
export const sendTokenCall = (privateKey: Hex, data: Hex) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const client = yield* localClient
    const sender = yield* ExecutorSender.make({ chainId: chain.chainId, client, signer: fromPrivateKey(Redacted.make(privateKey)) })
    const hash = yield* Effect.orDie(sender.send({ to: chain.contracts.usdc, data, gas: 120_000n }))
    yield* Effect.promise(() => client.waitForTransactionReceipt({ hash, pollingInterval: 50 }))
    return hash
  })

/**
 * A third party (the account of `privateKey`) sends a pull payment's authorization itself, as anyone
 * who saw its signature can; answers the hash without waiting for it to be mined.
 */
export const sendAuthorizationAs = (privateKey: Hex, proof: Extract<PaymentProof, { readonly _tag: "Authorization" }>) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const client = yield* localClient
    const payer = getAddress(proof.account.slice(proof.account.lastIndexOf(":") + 1))
    const data = yield* Effect.orDie(Effect.fromResult(authorizationCalldata(proof, payer, chain.collectionAddress)))
    const sender = yield* ExecutorSender.make({ chainId: chain.chainId, client, signer: fromPrivateKey(Redacted.make(privateKey)) })
    return yield* Effect.orDie(sender.send({ to: chain.contracts.usdc, data, gas: 200_000n }))
  })

/** The executor's transaction count and native balance: unchanged when it sent nothing. */
export const executorAccount = Effect.gen(function*() {
  const chain = yield* LocalChain.LocalChain
  const client = yield* localClient
  return yield* Effect.promise(async () => ({
    nonce: await client.getTransactionCount({ address: chain.executorAddress, blockTag: "pending" }),
    balance: await client.getBalance({ address: chain.executorAddress, blockTag: "pending" })
  }))
})

/** Deploys a contract (creation bytecode + constructor arguments) from `privateKey`; answers its address. */
export const deployContract = (privateKey: Hex, data: Hex) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const client = yield* localClient
    const sender = yield* ExecutorSender.make({ chainId: chain.chainId, client, signer: fromPrivateKey(Redacted.make(privateKey)) })
    const hash = yield* Effect.orDie(sender.send({ data, gas: 1_000_000n }))
    const receipt = yield* Effect.promise(() => client.waitForTransactionReceipt({ hash, pollingInterval: 50 }))
    if (!receipt.contractAddress) return yield* Effect.die(new Error("no contract deployed"))
    return getAddress(receipt.contractAddress)
  })

/** Plain ERC-20 `transfer(to, value)` calldata. */
export const transferCalldata = (to: Address, value: bigint): Hex =>
  encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [to, value] })

/** Observes until the outcome is not `pending` (at most 10 s). */
export const settledOutcome = (asset: string, hash: string) =>
  Effect.gen(function*() {
    const gateway = yield* ChainGateway
    return yield* gateway.observe(asset, hash).pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (outcome: ChainOutcome) => outcome !== "pending" }),
      Effect.timeoutOrElse({ duration: Duration.seconds(10), orElse: () => Effect.succeed("pending" as const) })
    )
  })

/** anvil's test actions (mine, set the next block's time, …). */
export const testClient = Effect.map(
  LocalChain.LocalChain,
  (chain) => createTestClient({ mode: "anvil", transport: http(chain.node.rpcUrl) })
)

/** Mines `blocks` empty blocks on anvil. */
export const mineBlocks = (blocks: number) =>
  Effect.flatMap(testClient, (client) => Effect.promise(() => client.mine({ blocks })))
