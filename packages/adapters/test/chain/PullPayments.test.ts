/**
 * Pull payments (EIP-3009) through the viem ChainGateway on a real anvil chain: verify, submit,
 * observe, nonce serialization under concurrency, replays and an unreachable RPC.
 */
import { ChainGateway, ParamsValidation } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { createServer } from "node:net"
import { encodeDeployData, encodeFunctionData, type Hash } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { TestSmartWallet, TestUsdc } from "../../src/chain/contracts.generated.ts"
import { LocalChain, settingsFor } from "../../src/chain/LocalChain.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import * as ViemChainGateway from "../../src/chain/ViemChainGateway.ts"
import {
  balanceOf,
  chainTestLayer,
  deployContract,
  executorAccount,
  localClient,
  mineBlocks,
  sendAuthorizationAs,
  sendTokenCall,
  settledOutcome,
  signAuthorization,
  testClient,
  testGatewayOptions,
  wallet
} from "./support/ChainTest.ts"

const usdc = (whole: number) => BigInt(whole) * 10n ** 6n
const notTheAccounts = "The signature was not made by the option's account."

/** The failure of `effect`, which must fail with `ParamsValidation`. */
const paramsValidation = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    assert.instanceOf(error, ParamsValidation)
    return error as ParamsValidation
  })

/** A port on 127.0.0.1 where nothing listens. */
const deadPort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
      })
    })
)

/** Another gateway on the same local chain, with its settings changed by `change`. */
const gatewayWith = (change: (settings: ReturnType<typeof settingsFor>) => ReturnType<typeof settingsFor>) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain
    const settings = change(settingsFor(chain, 1))
    return yield* ViemChainGateway.make(testGatewayOptions).pipe(
      Effect.provide(Layer.merge(ChainConfig.layer(settings), SignatureRecovery.layerInline))
    )
  })

layer(chainTestLayer(), { excludeTestServices: true, timeout: "60 seconds" })("ViemChainGateway: pull payments", (it) => {
  it.effect("verify accepts an authorization signed by the option's account", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const proof = yield* signAuthorization({ payer: wallet(1), value: usdc(25) })
      yield* gateway.verify(proof)
    }))

  it.effect("verify refuses a signature by another account", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const proof = yield* signAuthorization({ payer: wallet(1), signer: wallet(2), value: usdc(25) })
      const error = yield* paramsValidation(gateway.verify(proof))
      assert.strictEqual(error.message, notTheAccounts)
    }))

  it.effect("verify refuses a proof that differs from what was signed (value, nonce, expiry, recipient)", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const proof = yield* signAuthorization({ payer: wallet(1), value: usdc(25) })
      for (const tampered of [
        { ...proof, value: proof.value + 1n },
        { ...proof, nonce: `0x${"ab".repeat(32)}` },
        { ...proof, validBefore: proof.validBefore + 1 },
        { ...proof, account: `${chain.chainId}:${wallet(3).address}` }
      ]) {
        const error = yield* paramsValidation(gateway.verify(tampered))
        assert.strictEqual(error.message, notTheAccounts)
      }
      const elsewhere = yield* paramsValidation(gateway.verify({ ...proof, to: wallet(4).address }))
      assert.strictEqual(elsewhere.message, "The payment's recipient is not the collection address.")
    }))

  it.effect("verify refuses expired, malformed and high-s signatures, and foreign chains or assets", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const expired = yield* signAuthorization({
        payer: wallet(1),
        value: usdc(1),
        validBefore: Math.floor(Date.now() / 1000) - 1
      })
      assert.match((yield* paramsValidation(gateway.verify(expired))).message, /expired/)

      const proof = yield* signAuthorization({ payer: wallet(1), value: usdc(1) })
      assert.match((yield* paramsValidation(gateway.verify({ ...proof, signature: "0x1234" }))).message, /not made by/)
      assert.match((yield* paramsValidation(gateway.verify({ ...proof, signature: "zz" }))).message, /not 0x-prefixed hex/)
      // The malleable twin (n - s, flipped v) recovers to the same key but is refused, as the token refuses it.
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
      const s = BigInt(`0x${proof.signature.slice(66, 130)}`)
      const v = Number.parseInt(proof.signature.slice(130), 16)
      const twin = `${proof.signature.slice(0, 66)}${(n - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}`
      assert.match((yield* paramsValidation(gateway.verify({ ...proof, signature: twin }))).message, /low-s/)

      assert.match(
        (yield* paramsValidation(gateway.verify({ ...proof, account: `eip155:1:${wallet(1).address}` }))).message,
        /not on the asset's chain/
      )
      assert.match(
        (yield* paramsValidation(gateway.verify({ ...proof, asset: `eip155:1/erc20:${wallet(5).address}` }))).message,
        /not accepted/
      )
    }))

  it.effect("submit then observe: succeeded once mined, and the balances moved exactly", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const payer = wallet(1)
      const [payerBefore, collectedBefore, executorBefore] = [
        yield* balanceOf(payer.address),
        yield* balanceOf(chain.collectionAddress),
        yield* balanceOf(chain.executorAddress)
      ]
      const proof = yield* signAuthorization({ payer, value: usdc(12) + 345_678n })
      yield* gateway.verify(proof)
      const hash = yield* gateway.submit(proof)
      assert.match(hash, /^0x[0-9a-f]{64}$/)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, hash), "succeeded")
      assert.strictEqual(yield* balanceOf(payer.address), payerBefore - proof.value)
      assert.strictEqual(yield* balanceOf(chain.collectionAddress), collectedBefore + proof.value)
      assert.strictEqual(yield* balanceOf(chain.executorAddress), executorBefore, "the executor only pays gas")
    }))

  it.effect("usedBy: nothing before the authorization is used; after two sends of it in one block (a second by the executor is not sent), the one that paid", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const anvil = yield* testClient
      const proof = yield* signAuthorization({ payer: wallet(2), value: usdc(3) })
      assert.isTrue(Option.isNone(yield* gateway.usedBy(proof)))
      // Two workers send the authorization before either is mined (automine off): one pays, one reverts.
      yield* Effect.acquireRelease(
        Effect.promise(() => anvil.setAutomine(false)),
        () => Effect.promise(() => anvil.setAutomine(true))
      )
      const first = yield* gateway.submit(proof)
      // Simulated against the pool, where the first uses it, a second send would revert: not sent.
      const executor = yield* executorAccount
      assert.strictEqual((yield* Effect.flip(gateway.submit(proof)))._tag, "SubmissionRefused")
      assert.deepStrictEqual(yield* executorAccount, executor)
      // Someone else sends it too, in the same block.
      const second = yield* sendAuthorizationAs(anvilAccount(8).privateKey, proof)
      yield* mineBlocks(1)
      yield* Effect.promise(() => anvil.setAutomine(true))
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, first), "succeeded")
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, second), "failed")
      assert.deepStrictEqual(yield* gateway.usedBy(proof), Option.some(first))
    }).pipe(Effect.scoped))

  it.effect("20 concurrent submits from different payers are all mined: one nonce sequence, no race", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      // Twenty fresh payers with TUSDC and no ETH: the executor pays all the gas.
      const payers = Array.from({ length: 20 }, () => privateKeyToAccount(generatePrivateKey()))
      for (const [i, payer] of payers.entries()) {
        yield* sendTokenCall(
          anvilAccount(8).privateKey,
          encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [payer.address, usdc(100 + i)] })
        )
      }
      const collectedBefore = yield* balanceOf(chain.collectionAddress)
      const proofs = yield* Effect.forEach(payers, (payer, i) => signAuthorization({ payer, value: usdc(100 + i) }))
      const hashes = yield* Effect.forEach(proofs, (proof) => gateway.submit(proof), { concurrency: "unbounded" })
      assert.strictEqual(new Set(hashes).size, 20)
      const outcomes = yield* Effect.forEach(hashes, (hash) => settledOutcome(chain.usdcAssetId, hash), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(outcomes, Array.from({ length: 20 }, () => "succeeded"))
      for (const payer of payers) assert.strictEqual(yield* balanceOf(payer.address), 0n)
      const total = proofs.reduce((sum, proof) => sum + proof.value, 0n)
      assert.strictEqual(yield* balanceOf(chain.collectionAddress), collectedBefore + total)
    }))

  it.effect("a contract wallet pays by EIP-1271: verified by isValidSignature, accepted by the token", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const owner = wallet(6)
      const smartWallet = yield* deployContract(
        anvilAccount(7).privateKey,
        encodeDeployData({ abi: TestSmartWallet.abi, bytecode: TestSmartWallet.bytecode, args: [owner.address] })
      )
      yield* sendTokenCall(
        anvilAccount(8).privateKey,
        encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [smartWallet, usdc(50)] })
      )
      const proof = yield* signAuthorization({ payer: owner, from: smartWallet, value: usdc(50) })
      yield* gateway.verify(proof)
      const stranger = yield* signAuthorization({ payer: wallet(5), from: smartWallet, value: usdc(50) })
      assert.strictEqual((yield* paramsValidation(gateway.verify(stranger))).message, notTheAccounts)

      const collected = yield* balanceOf(chain.collectionAddress)
      const hash = yield* gateway.submit(proof)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, hash), "succeeded")
      assert.strictEqual(yield* balanceOf(smartWallet), 0n)
      assert.strictEqual(yield* balanceOf(chain.collectionAddress), collected + usdc(50))
    }))

  it.effect("submitting a used authorization again answers the transaction that used it and sends nothing", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const proof = yield* signAuthorization({ payer: wallet(2), value: usdc(3) })
      const first = yield* gateway.submit(proof)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, first), "succeeded")
      const collected = yield* balanceOf(chain.collectionAddress)
      const client = yield* localClient
      const executorNonce = yield* Effect.promise(() => client.getTransactionCount({ address: chain.executorAddress }))
      // As after a crash between broadcast and recording the hash: the executor resubmits.
      const again = yield* gateway.submit(proof)
      assert.strictEqual(again, first)
      assert.strictEqual(yield* Effect.promise(() => client.getTransactionCount({ address: chain.executorAddress })), executorNonce)
      assert.strictEqual(yield* balanceOf(chain.collectionAddress), collected, "nothing moved twice")
    }))

  it.effect("an authorization whose validBefore passes before inclusion is not sent; expiredOnChain once a block is stamped at validBefore", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      // Valid when verified, but the block that would include it is stamped at validBefore: too late.
      const client = yield* localClient
      const latest = yield* Effect.promise(() => client.getBlock())
      const validBefore = Number(latest.timestamp) + 5
      const proof = yield* signAuthorization({ payer: wallet(3), value: usdc(1), validBefore })
      yield* gateway.verify(proof)
      assert.isFalse(yield* gateway.expiredOnChain(proof))
      const anvil = yield* testClient
      yield* Effect.promise(() => anvil.setNextBlockTimestamp({ timestamp: BigInt(validBefore) }))
      const executor = yield* executorAccount
      assert.strictEqual((yield* Effect.flip(gateway.submit(proof)))._tag, "SubmissionRefused")
      assert.deepStrictEqual(yield* executorAccount, executor, "nothing sent")
      assert.isFalse(yield* gateway.expiredOnChain(proof), "no block is stamped at validBefore yet")
      yield* mineBlocks(1)
      assert.isTrue(yield* gateway.expiredOnChain(proof))
    }))

  it.effect("observe: a transaction the node does not have is dropped; one in its pool is pending, until another of the executor takes its nonce", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const client = yield* localClient
      const anvil = yield* testClient
      assert.strictEqual(yield* gateway.observe(chain.usdcAssetId, `0x${"12".repeat(32)}`), "dropped")
      yield* Effect.acquireRelease(
        Effect.promise(() => anvil.setAutomine(false)),
        () => Effect.promise(() => anvil.setAutomine(true))
      )
      const proof = yield* signAuthorization({ payer: wallet(6), value: usdc(1) })
      const hash = yield* gateway.submit(proof)
      assert.strictEqual(yield* gateway.observe(chain.usdcAssetId, hash), "pending", "in the pool, not mined yet")
      // Another process with the executor's key sends its own transaction with that nonce, at higher
      // fees: it replaces ours in the pool (what two workers sharing the executor can do).
      const ours = yield* Effect.promise(() => client.getTransaction({ hash: hash as Hash }))
      const executor = privateKeyToAccount(anvilAccount(0).privateKey)
      const replacing = yield* Effect.promise(() =>
        executor.signTransaction({
          type: "eip1559",
          chainId: ours.chainId!,
          nonce: ours.nonce,
          to: executor.address,
          value: 0n,
          gas: 21_000n,
          maxFeePerGas: ours.maxFeePerGas! * 2n,
          maxPriorityFeePerGas: ours.maxPriorityFeePerGas! * 2n
        })
      )
      yield* Effect.promise(() => client.sendRawTransaction({ serializedTransaction: replacing }))
      yield* mineBlocks(1)
      assert.strictEqual(yield* gateway.observe(chain.usdcAssetId, hash), "dropped")
      assert.isTrue(Option.isNone(yield* gateway.usedBy(proof)), "it moved nothing: the authorization may be sent again")
    }).pipe(Effect.scoped))

  it.effect("observe: confirmations are counted before success", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain

      const strict = yield* gatewayWith((settings) => ({
        ...settings,
        chains: settings.chains.map((c) => ({ ...c, requiredConfirmations: 3 }))
      }))
      const proof = yield* signAuthorization({ payer: wallet(4), value: usdc(2) })
      const hash = yield* strict.submit(proof)
      // Instamine: included at once, one confirmation.
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, hash), "succeeded", "1 confirmation is enough here")
      assert.strictEqual(yield* strict.observe(chain.usdcAssetId, hash), "pending")
      yield* mineBlocks(1)
      assert.strictEqual(yield* strict.observe(chain.usdcAssetId, hash), "pending")
      yield* mineBlocks(1)
      assert.strictEqual(yield* strict.observe(chain.usdcAssetId, hash), "succeeded")
    }))

  it.effect("RPC down: observe answers unknown (never failed) and submit fails with ChainUnavailable", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const proof = yield* signAuthorization({ payer: wallet(5), value: usdc(1) })
      const hash = yield* gateway.submit(proof)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, hash), "succeeded")

      const port = yield* deadPort
      const cut = yield* gatewayWith((settings) => ({
        ...settings,
        chains: settings.chains.map((c) => ({ ...c, rpcUrl: `http://127.0.0.1:${port}` }))
      }))
      assert.strictEqual(yield* cut.observe(chain.usdcAssetId, hash), "unknown")
      const error = yield* Effect.flip(cut.submit(yield* signAuthorization({ payer: wallet(5), value: usdc(1) })))
      assert.strictEqual(error._tag, "ChainUnavailable")
      assert.strictEqual(error.chainId, "eip155:31337")
    }))

  it.effect("start-up refuses a chain whose rpcUrl serves another chain id", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(gatewayWith((settings) => ({
        chains: settings.chains.map((c) => ({ ...c, chainId: "eip155:1" })),
        assets: settings.assets.map((a) => ({ ...a, assetId: a.assetId.replace("eip155:31337", "eip155:1") }))
      })))
      assert.strictEqual(error._tag, "ChainConfigError")
      assert.match(error.message, /serves chain id 31337, not 1/)
    }))

  it.effect("observe: a configured chain with an asset it does not know answers unknown", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      assert.strictEqual(
        yield* gateway.observe(`eip155:31337/erc20:${wallet(6).address}`, `0x${"34".repeat(32)}`),
        "unknown"
      )
    }))
})
