/**
 * Deploys the test contracts (see `packages/adapters/contracts/`) on a development chain: TestUsdc
 * (a USDC-style EIP-3009 token) twice, as TUSDC and as the euro token TEURC, TestPriceFeed (a settable Chainlink-style feed) and a
 * DepositFactoryV2 (per-payment deposit addresses taking tokens and the coin, owned by the deployer), then mints
 * both tokens to the default anvil accounts (TestUsdt and Permit2: `Permit2Deploy.ts`); and, on its own, a
 * SubscriptionVault or a PaymentEscrow. Meant for a fresh anvil node: nothing checks for an earlier deployment.
 *
 * @module
 */
import { Effect, Redacted, Schema } from "effect"
import { type Address, encodeDeployData, encodeFunctionData, getAddress, type Hash, type Hex, type PublicClient } from "viem"
import { anvilAccount, anvilAccounts } from "./AnvilAccounts.ts"
import { DepositFactoryV2, PaymentEscrow, SubscriptionVault, TestPriceFeed, TestUsdc } from "./contracts.generated.ts"
import * as ExecutorSender from "./ExecutorSender.ts"
import { inProcess, NonceSequences } from "./NonceSequences.ts"
import { permit2Address } from "./Permit2.ts"
import { makeClient, rpc } from "./RpcCall.ts"
import { fromPrivateKey } from "./TransactionSigner.ts"

/** Where the test contracts were deployed. */
export interface TestContracts {
  /** TestUsdc ("Test USD Coin", TUSDC, 6 decimals, EIP-712 version "2"). */
  readonly usdc: Address
  /**
   * A second TestUsdc, offered as TEURC: the euro test token (EURC is a FiatToken like USDC, so the
   * same contract stands for it; its on-chain name stays the contract's, the configuration names it).
   */
  readonly eurc: Address
  /** TestPriceFeed, settable by the deployer. */
  readonly priceFeed: Address
  /** DepositFactoryV2, owned by the deployer (the executor), sweeping to `depositDestination`. */
  readonly depositFactory: Address
  /** The account that deployed them and owns them. */
  readonly deployer: Address
}

/** Options of {@link deployTestContracts}. */
export interface DeployOptions {
  readonly rpcUrl: string
  /** Numeric chain id, e.g. 31337. */
  readonly chainId: number
  /** Deployer and owner; default anvil account #0. */
  readonly deployerPrivateKey?: Hex | undefined
  /** Where the deposit factory sweeps to (the collection address); default anvil account #9. */
  readonly depositDestination?: Address | undefined
  /** Who receives TUSDC; default the ten default anvil accounts. */
  readonly mintTo?: ReadonlyArray<Address> | undefined
  /** Base units minted to each; default 1,000,000 TUSDC. */
  readonly mintAmount?: bigint | undefined
  /** The feed's first answer; default 2,000 USD with 8 decimals, described "TETH / USD". */
  readonly priceFeed?: {
    readonly decimals: number
    readonly description: string
    readonly answer: bigint
  } | undefined
}

/** A deployment step failed. */
export class DeployError extends Schema.TaggedError<DeployError>()("DeployError", {
  message: Schema.String
}) {}

/** 1,000,000 TUSDC in base units (6 decimals). */
export const defaultMintAmount = 1_000_000n * 10n ** 6n

const mintGas = 100_000n

/** Waits for `hash` to be mined successfully; answers its receipt. */
const mined = (client: PublicClient, chainId: string, hash: Hash, what: string) =>
  rpc(chainId, "waitForTransactionReceipt", () =>
    client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 })).pipe(
      Effect.mapError((error) => new DeployError({ message: `${what}: ${error.message}` })),
      Effect.filterOrFail(
        (receipt) => receipt.status === "success",
        () => new DeployError({ message: `${what}: transaction ${hash} reverted` })
      )
    )

/** The creation data of a DepositFactoryV2 owned by `owner` (the executor) sweeping to `destination` (the collection address). */
const depositFactoryDeployData = (owner: Address, destination: Address) =>
  encodeDeployData({ abi: DepositFactoryV2.abi, bytecode: DepositFactoryV2.bytecode, args: [owner, destination] })

/** A deployer on a development chain: its sender, and contract creation waiting for the address. */
export const deployerOn = Effect.fnUntraced(function*(options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey">) {
  const chainId = `eip155:${options.chainId}`
  const client = makeClient(Redacted.make(options.rpcUrl))
  // A development chain's contracts are deployed by the one process starting it, before the database
  // is migrated: its nonces are kept in this process, not in the shared sequence.
  const sender = yield* ExecutorSender.make({
    chainId,
    client,
    signer: fromPrivateKey(Redacted.make(options.deployerPrivateKey ?? anvilAccount(0).privateKey))
  }).pipe(Effect.provideService(NonceSequences, inProcess))
  const toDeployError = (what: string) => (error: { readonly message: string }) =>
    new DeployError({ message: `${what}: ${error.message}` })
  const deploy = (data: Hex, what: string) =>
    rpc(chainId, "eth_estimateGas", () => client.estimateGas({ account: sender.address, data })).pipe(
      Effect.flatMap((gas) => sender.send({ data, gas: gas + gas / 5n })),
      Effect.mapError(toDeployError(what)),
      Effect.flatMap((hash) => mined(client, chainId, hash, what)),
      Effect.flatMap((receipt) =>
        receipt.contractAddress
          ? Effect.succeed(getAddress(receipt.contractAddress))
          : Effect.fail(new DeployError({ message: `${what}: no contract address in the receipt` }))
      )
    )
  return { chainId, client, sender, deploy, toDeployError }
})

/** Mints `amount` (default {@link defaultMintAmount}) of a test token (`mint(to, value)`, deployer only) to each of `mintTo`. */
export const mintEach = (
  deployer: Pick<Effect.Success<ReturnType<typeof deployerOn>>, "chainId" | "client" | "sender" | "toDeployError">,
  token: Address,
  symbol: string,
  options: Pick<DeployOptions, "mintTo" | "mintAmount">
) => {
  const { chainId, client, sender, toDeployError } = deployer
  const amount = options.mintAmount ?? defaultMintAmount
  return Effect.forEach(
    options.mintTo ?? anvilAccounts.map((account) => account.address),
    (to) =>
      sender.send({
        to: token,
        data: encodeFunctionData({ abi: TestUsdc.abi, functionName: "mint", args: [to, amount] }),
        gas: mintGas
      }).pipe(
        Effect.mapError(toDeployError(`mint ${symbol} to ${to}`)),
        Effect.flatMap((hash) => mined(client, chainId, hash, `mint ${symbol} to ${to}`))
      ),
    { concurrency: "unbounded", discard: true }
  )
}

/** Deploys a DepositFactoryV2 alone (owned by the deployer), e.g. on a kept chain recorded before it had one. */
export const deployDepositFactory = Effect.fn("Deploy.deployDepositFactory")(function*(
  options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey" | "depositDestination">
): Effect.fn.Return<Address, DeployError> {
  const { deploy, sender } = yield* deployerOn(options)
  return yield* deploy(depositFactoryDeployData(sender.address, options.depositDestination ?? anvilAccount(9).address), "deploy DepositFactoryV2")
})

/** Deploys a SubscriptionVault over Permit2's canonical address (which needs no code yet: the vault only keeps it). */
export const deploySubscriptionVault = Effect.fn("Deploy.deploySubscriptionVault")(function*(
  options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey">
): Effect.fn.Return<Address, DeployError> {
  const { deploy } = yield* deployerOn(options)
  return yield* deploy(
    encodeDeployData({ abi: SubscriptionVault.abi, bytecode: SubscriptionVault.bytecode, args: [permit2Address] }),
    "deploy SubscriptionVault"
  )
})

/** Deploys a PaymentEscrow (it keeps nothing: every payment's terms name their operator and token). */
export const deployPaymentEscrow = Effect.fn("Deploy.deployPaymentEscrow")(function*(
  options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey">
): Effect.fn.Return<Address, DeployError> {
  const { deploy } = yield* deployerOn(options)
  return yield* deploy(PaymentEscrow.bytecode, "deploy PaymentEscrow")
})

/** Deploys the euro test token alone and mints it to the default accounts, e.g. on a kept chain recorded before it had one. */
export const deployTestEurc = Effect.fn("Deploy.deployTestEurc")(function*(
  options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey">
): Effect.fn.Return<Address, DeployError> {
  const deployer = yield* deployerOn(options)
  const eurc = yield* deployer.deploy(TestUsdc.bytecode, "deploy the euro TestUsdc")
  yield* mintEach(deployer, eurc, "TEURC", {})
  return eurc
})

/** Deploys TestUsdc (twice: TUSDC and TEURC), TestPriceFeed and DepositFactoryV2 and mints both tokens; answers their addresses. */
export const deployTestContracts = Effect.fn("Deploy.deployTestContracts")(function*(
  options: DeployOptions
): Effect.fn.Return<TestContracts, DeployError> {
  const deployer = yield* deployerOn(options)
  const { deploy, sender } = deployer
  const feed = options.priceFeed ?? { decimals: 8, description: "TETH / USD", answer: 2_000n * 10n ** 8n }

  const [usdc, eurc, priceFeed, depositFactory] = yield* Effect.all([
    deploy(TestUsdc.bytecode, "deploy TestUsdc"),
    deploy(TestUsdc.bytecode, "deploy the euro TestUsdc"),
    deploy(
      encodeDeployData({
        abi: TestPriceFeed.abi,
        bytecode: TestPriceFeed.bytecode,
        args: [feed.decimals, feed.description, feed.answer]
      }),
      "deploy TestPriceFeed"
    ),
    deploy(depositFactoryDeployData(sender.address, options.depositDestination ?? anvilAccount(9).address), "deploy DepositFactoryV2")
  ], { concurrency: "unbounded" })

  yield* mintEach(deployer, usdc, "TUSDC", options)
  yield* mintEach(deployer, eurc, "TEURC", options)
  return { usdc, eurc, priceFeed, depositFactory, deployer: sender.address }
})
