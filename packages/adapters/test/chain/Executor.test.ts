/**
 * The executor's sender (one nonce sequence per account) and signature recovery on worker threads.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { type Hash, hashMessage, type Hex, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as Anvil from "../../src/chain/Anvil.ts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ExecutorSender from "../../src/chain/ExecutorSender.ts"
import { makeClient } from "../../src/chain/RpcCall.ts"
import * as SignatureRecovery from "../../src/chain/SignatureRecovery.ts"
import { fromPrivateKey } from "../../src/chain/TransactionSigner.ts"

/** A zero-value self-call: cheap and always succeeds. */
const ping = (sender: ExecutorSender.ExecutorSender) => sender.send({ to: sender.address, data: "0x", gas: 21_000n })

describe("ExecutorSender", () => {
  it.live("concurrent sends get consecutive nonces and are all mined", () =>
    Effect.scoped(Effect.gen(function*() {
      const node = yield* Anvil.start()
      const client = makeClient(Redacted.make(node.rpcUrl))
      const sender = yield* ExecutorSender.make({
        chainId: `eip155:${node.chainId}`,
        client,
        signer: fromPrivateKey(Redacted.make(anvilAccount(3).privateKey))
      })
      const hashes = yield* Effect.forEach(Array.from({ length: 15 }), () => ping(sender), { concurrency: "unbounded" })
      const txs = yield* Effect.forEach(hashes, (hash) =>
        Effect.promise(() => client.waitForTransactionReceipt({ hash, pollingInterval: 50 }).then(() => client.getTransaction({ hash }))))
      assert.deepStrictEqual(txs.map((tx) => tx.nonce).sort((a, b) => a - b), Array.from({ length: 15 }, (_, i) => i))
    })))

  it.live("recovers when another process used the same key (nonce too low → re-read)", () =>
    Effect.scoped(Effect.gen(function*() {
      const node = yield* Anvil.start()
      const client = makeClient(Redacted.make(node.rpcUrl))
      const options = {
        chainId: `eip155:${node.chainId}`,
        client,
        signer: fromPrivateKey(Redacted.make(anvilAccount(4).privateKey))
      }
      const ours = yield* ExecutorSender.make(options)
      const theirs = yield* ExecutorSender.make(options)
      yield* ping(ours)
      yield* ping(theirs)
      yield* ping(theirs)
      // `ours` still believes the next nonce is 1: the node refuses it, and the sender re-reads.
      const hash: Hash = yield* ping(ours)
      const tx = yield* Effect.promise(() => client.getTransaction({ hash }))
      assert.strictEqual(tx.nonce, 3)
    })))

  it.live("an RPC that cannot be reached fails with ChainRpcError (unavailable)", () =>
    Effect.gen(function*() {
      const sender = yield* ExecutorSender.make({
        chainId: "eip155:31337",
        client: makeClient(Redacted.make("http://127.0.0.1:9"), { timeout: "1 second" }),
        signer: fromPrivateKey(Redacted.make(anvilAccount(0).privateKey))
      })
      const error = yield* Effect.flip(ping(sender))
      assert.strictEqual(error._tag, "ChainRpcError")
      assert.strictEqual(error.failure, "unavailable")
      assert.notInclude(error.message, "127.0.0.1:9", "no URL in messages")
    }))
})

describe("SignatureRecovery", () => {
  /** The service of `layer`, alive until the test's scope closes. */
  const recoveryFrom = (layer: Layer.Layer<SignatureRecovery.SignatureRecovery>) =>
    Effect.map(Layer.build(layer), (context) => Context.get(context, SignatureRecovery.SignatureRecovery))

  const signed = Effect.promise(async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const message = toHex(crypto.getRandomValues(new Uint8Array(20)))
    const signature = await account.signMessage({ message: { raw: message } })
    return { address: account.address, hash: hashMessage({ raw: message }), signature }
  })

  it.live("the worker pool recovers the same signers as the main thread, many at once", () =>
    Effect.scoped(Effect.gen(function*() {
      const pool = yield* recoveryFrom(SignatureRecovery.layerWorkers({ size: 2 }))
      const inline = yield* recoveryFrom(SignatureRecovery.layerInline)
      const samples = yield* Effect.forEach(Array.from({ length: 40 }), () => signed)
      const fromPool = yield* Effect.forEach(samples, (s) => pool.recover(s.hash, s.signature), { concurrency: "unbounded" })
      const fromMain = yield* Effect.forEach(samples, (s) => inline.recover(s.hash, s.signature))
      assert.deepStrictEqual(fromPool, samples.map((s) => Option.some(s.address)))
      assert.deepStrictEqual(fromMain, fromPool)
    })))

  it.live("a signature that recovers to no key is none; an interrupted request leaves the pool working", () =>
    Effect.scoped(Effect.gen(function*() {
      const pool = yield* recoveryFrom(SignatureRecovery.layerWorkers({ size: 1 }))
      const garbage: Hex = `0x${"00".repeat(65)}`
      assert.deepStrictEqual(yield* pool.recover(keccak256("0x01"), garbage), Option.none())
      const sample = yield* signed
      const fiber = yield* Effect.forkChild(pool.recover(sample.hash, sample.signature))
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(yield* pool.recover(sample.hash, sample.signature), Option.some(sample.address))
    })))

  it.live("a closed pool refuses work instead of hanging", () =>
    Effect.gen(function*() {
      const pool = yield* Effect.scoped(recoveryFrom(SignatureRecovery.layerWorkers({ size: 1 })))
      const exit = yield* Effect.exit(pool.recover(keccak256("0x01"), `0x${"00".repeat(65)}`))
      assert.match(String(exit), /closed/)
    }))
})
