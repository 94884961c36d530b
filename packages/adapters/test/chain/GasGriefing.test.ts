/**
 * The executor's gas under attack, on a real anvil chain: a contract wallet whose EIP-1271 check
 * burns as much gas as its owner likes, an authorization that can only revert, and buyers that
 * exhaust the executor's gas budget. Whatever would cost more than the chain's ceiling, revert, or
 * overrun a budget is not sent: the executor's nonce and balance do not move.
 */
import { ChainGateway, ParamsValidation } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Metric, Redacted } from "effect"
import { encodeDeployData, encodeFunctionData, type Hash } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { GasBurningWallet, TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as ExecutorSender from "../../src/chain/ExecutorSender.ts"
import { defaultGasPolicy, type GasSettings } from "../../src/chain/GasPolicy.ts"
import { LocalChain, settingsFor } from "../../src/chain/LocalChain.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import * as ViemChainGateway from "../../src/chain/ViemChainGateway.ts"
import { ProcessMetrics } from "@paygate/observability"
import {
  chainTestLayer,
  deployContract,
  executorAccount,
  localClient,
  sendTokenCall,
  settledOutcome,
  signAuthorization,
  testGatewayOptions,
  wallet
} from "./support/ChainTest.ts"
import { fromPrivateKey } from "../../src/chain/TransactionSigner.ts"

const usdc = (whole: number) => BigInt(whole) * 10n ** 6n
const chainId = "eip155:31337"
const refusals = (reason: string) => Effect.map(Metric.value(ProcessMetrics.executorGasRefused(chainId, reason)), (state) => state.count)
const gasSent = Effect.map(Metric.value(ProcessMetrics.executorGas(chainId)), (state) => state.count)

/** A gateway on the same local chain with the chain's `gas` settings (and so a budget of its own). */
const gatewayWithGas = (gas: GasSettings) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain
    const settings = settingsFor(chain, 1)
    return yield* ViemChainGateway.make(testGatewayOptions).pipe(
      Effect.provide(Layer.merge(
        ChainConfig.layer({ ...settings, chains: settings.chains.map((c) => ({ ...c, gas })) }),
        SignatureRecovery.layerInline
      ))
    )
  })

/** Sends `data` to `to` from the account of `privateKey` and waits until it is mined. */
const call = (privateKey: `0x${string}`, to: `0x${string}`, data: `0x${string}`) =>
  Effect.gen(function*() {
    const client = yield* localClient
    const sender = yield* ExecutorSender.make({ chainId, client, signer: fromPrivateKey(Redacted.make(privateKey)) })
    const hash = yield* Effect.orDie(sender.send({ to, data, gas: 200_000n }))
    const receipt = yield* Effect.promise(() => client.waitForTransactionReceipt({ hash, pollingInterval: 50 }))
    assert.strictEqual(receipt.status, "success")
  })

/** A fresh buyer with `amount` TUSDC. */
const fundedBuyer = (amount: bigint) =>
  Effect.gen(function*() {
    const buyer = privateKeyToAccount(generatePrivateKey())
    yield* sendTokenCall(
      anvilAccount(8).privateKey,
      encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [buyer.address, amount] })
    )
    return buyer
  })

layer(chainTestLayer(), { excludeTestServices: true, timeout: "60 seconds" })("executor gas: ceilings, simulation, budgets", (it) => {
  it.effect("a contract wallet that burns gas in isValidSignature: confirm's check gives up at its ceiling, the executor sends nothing over its own", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const owner = wallet(6)
      const burner = yield* deployContract(
        anvilAccount(7).privateKey,
        encodeDeployData({ abi: GasBurningWallet.abi, bytecode: GasBurningWallet.bytecode, args: [owner.address] })
      )
      yield* sendTokenCall(
        anvilAccount(8).privateKey,
        encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [burner, usdc(1)] })
      )
      const setBurn = (rounds: bigint) =>
        call(anvilAccount(6).privateKey, burner, encodeFunctionData({ abi: GasBurningWallet.abi, functionName: "setBurn", args: [rounds] }))
      const proof = yield* signAuthorization({ payer: owner, from: burner, value: usdc(1) })

      // Cheap while the confirm is verified; then its owner makes every check burn millions of gas.
      yield* gateway.verify(proof)
      yield* setBurn(30_000n)
      const client = yield* localClient
      const estimate = yield* Effect.promise(() =>
        client.estimateGas({
          account: chain.executorAddress,
          to: burner,
          data: encodeFunctionData({
            abi: GasBurningWallet.abi,
            functionName: "isValidSignature",
            args: [`0x${"00".repeat(32)}`, proof.signature as `0x${string}`]
          })
        })
      )
      assert.isAbove(Number(estimate), 5_000_000, "the wallet really burns millions")

      const unchecked = yield* Effect.flip(gateway.verify(proof))
      assert.instanceOf(unchecked, ParamsValidation, "a check over its gas ceiling does not accept the signature")

      // Simulated with the ceiling's gas, the token's call of the wallet runs out of it: refused.
      const executor = yield* executorAccount
      const refused = (yield* refusals("ceiling")) + (yield* refusals("reverts"))
      const error = yield* Effect.flip(gateway.submit(proof))
      assert.strictEqual(error._tag, "SubmissionRefused")
      assert.deepStrictEqual(yield* executorAccount, executor, "nothing sent, no gas paid")
      assert.strictEqual((yield* refusals("ceiling")) + (yield* refusals("reverts")) - refused, 1)

      // Back to a cheap check: sent, with a gas limit within the ceiling.
      yield* setBurn(0n)
      const collected = yield* Effect.promise(() =>
        client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [chain.collectionAddress] })
      )
      const hash = yield* gateway.submit(proof)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, hash), "succeeded")
      const sent = yield* Effect.promise(() => client.getTransaction({ hash: hash as Hash }))
      assert.isAtMost(Number(sent.gas), defaultGasPolicy.authorization)
      assert.strictEqual(
        yield* Effect.promise(() =>
          client.readContract({ address: chain.contracts.usdc, abi: TestUsdc.abi, functionName: "balanceOf", args: [chain.collectionAddress] })
        ),
        collected + usdc(1)
      )
    }))

  it.effect("an authorization whose estimate reverts (the payer has nothing) is not sent: the executor's nonce and balance are unchanged", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const broke = privateKeyToAccount(generatePrivateKey())
      const proof = yield* signAuthorization({ payer: broke, value: usdc(5) })
      yield* gateway.verify(proof)
      const executor = yield* executorAccount
      const reverts = yield* refusals("reverts")
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* Effect.flip(gateway.submit(proof)))._tag, "SubmissionRefused")
      assert.deepStrictEqual(yield* executorAccount, executor)
      assert.strictEqual((yield* refusals("reverts")) - reverts, 3)
    }))

  it.effect("the executor's gas budget, per buyer and in total, per window: beyond it nothing is sent, counted by reason", () =>
    Effect.gen(function*() {
      // One transferWithAuthorization is sent with about 75–100k gas: one per buyer, two in total.
      const gateway = yield* gatewayWithGas({ budgetPerBuyer: 150_000, budgetTotal: 250_000, budgetWindowSeconds: 3 })
      const chain = yield* LocalChain
      const [first, second, third] = [yield* fundedBuyer(usdc(10)), yield* fundedBuyer(usdc(10)), yield* fundedBuyer(usdc(10))]
      const before = { buyer: yield* refusals("buyer_budget"), total: yield* refusals("total_budget"), gas: yield* gasSent }

      const paid = yield* gateway.submit(yield* signAuthorization({ payer: first, value: usdc(1) }))
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, paid), "succeeded")
      const executor = yield* executorAccount
      const again = yield* Effect.flip(gateway.submit(yield* signAuthorization({ payer: first, value: usdc(1) })))
      assert.strictEqual(again._tag, "SubmissionRefused")
      assert.match(again.message, /buyer_budget/)
      assert.deepStrictEqual(yield* executorAccount, executor)

      yield* gateway.submit(yield* signAuthorization({ payer: second, value: usdc(1) }))
      const overall = yield* Effect.flip(gateway.submit(yield* signAuthorization({ payer: third, value: usdc(1) })))
      assert.match(overall.message, /total_budget/)
      assert.strictEqual((yield* refusals("buyer_budget")) - before.buyer, 1)
      assert.strictEqual((yield* refusals("total_budget")) - before.total, 1)
      assert.isAbove((yield* gasSent) - before.gas, 100_000)

      // The window moves on: the first buyer may be sent for again.
      yield* Effect.sleep("3100 millis")
      const later = yield* gateway.submit(yield* signAuthorization({ payer: first, value: usdc(1) }))
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, later), "succeeded")
    }))
})
