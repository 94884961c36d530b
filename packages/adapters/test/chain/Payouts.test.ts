/**
 * `ViemPayouts` on a local anvil chain: transfers from the collection address signed, recorded,
 * then broadcast; what `observe` reports for each fate of a transaction (succeeded, reverted,
 * paying someone else, dropped for another transaction with its nonce); and a chain without
 * `collectionPrivateKey`.
 */
import { assert, layer } from "@effect/vitest"
import { Payouts, type PayoutTransfer, SignedTransfer } from "@paygate/domain"
import { Duration, Effect, Exit, Layer, Option, Schedule } from "effect"
import { type Address, encodeFunctionData, type Hash, type Hex, keccak256 } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { TestUsdc } from "../../src/chain/contracts.generated.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import * as ViemPayouts from "../../src/chain/ViemPayouts.ts"
import { balanceOf, localClient } from "./support/ChainTest.ts"

const payoutsLayer = ViemPayouts.layerWith({ rpcTimeout: Duration.seconds(2), observeTimeout: Duration.seconds(3) }).pipe(
  Layer.provideMerge(LocalChain.layer())
)

const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address

/** A transfer of `value` TUSDC to `to`. */
const transferTo = (to: Address, value: bigint) =>
  Effect.map(LocalChain.LocalChain, (chain): PayoutTransfer => ({ asset: chain.usdcAssetId, recipient: `${chain.chainId}:${to}`, value }))

/** Observes until the outcome is not `pending` (at most 10 s). */
const decided = (transfer: PayoutTransfer, signed: SignedTransfer) =>
  Payouts.use((payouts) => payouts.observe(transfer, signed)).pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (outcome) => outcome !== "pending" }),
    Effect.timeoutOrElse({ duration: Duration.seconds(10), orElse: () => Effect.succeed("pending" as const) })
  )

/** Sends, recording the transfer in `stash` first. */
const sendRecording = (transfer: PayoutTransfer, stash: Array<SignedTransfer>, answer = true) =>
  Payouts.use((payouts) => payouts.send(transfer, (signed) => Effect.sync(() => (stash.push(signed), answer))))

/** The collection address's next nonce, as the node counts it (pending included). */
const collectionNonce = Effect.gen(function*() {
  const chain = yield* LocalChain.LocalChain
  const client = yield* localClient
  return yield* Effect.promise(() => client.getTransactionCount({ address: chain.collectionAddress, blockTag: "pending" }))
})

/** A transfer signed with the collection key at `nonce` (not broadcast), as a payout would record it. */
const signedByCollection = (to: Address, value: bigint, nonce: number) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const raw: Hex = yield* Effect.promise(() =>
      privateKeyToAccount(anvilAccount(9).privateKey).signTransaction({
        type: "eip1559",
        chainId: chain.node.chainId,
        nonce,
        to: chain.contracts.usdc,
        data: encodeFunctionData({ abi: TestUsdc.abi, functionName: "transfer", args: [to, value] }),
        gas: 100_000n,
        value: 0n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n
      })
    )
    return new SignedTransfer({ txHash: keccak256(raw), raw })
  })

layer(payoutsLayer, { excludeTestServices: true, timeout: "60 seconds" })("ViemPayouts (anvil)", (it) => {
  it.effect("sends from the collection address after recording the transfer; it succeeds and pays the recipient", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const to = fresh()
      const transfer = yield* transferTo(to, 1_234n)
      const stash: Array<SignedTransfer> = []
      const sent = Option.getOrThrow(yield* sendRecording(transfer, stash))
      assert.deepStrictEqual(stash, [sent], "recorded before it was sent")
      assert.strictEqual(yield* decided(transfer, sent), "succeeded")
      assert.strictEqual(yield* balanceOf(to), 1_234n)
      const client = yield* localClient
      const tx = yield* Effect.promise(() => client.getTransaction({ hash: sent.txHash as Hash }))
      assert.strictEqual(tx.from.toLowerCase(), chain.collectionAddress.toLowerCase())
      // Broadcasting it again changes nothing.
      yield* Payouts.use((payouts) => payouts.resend(transfer.asset, sent))
      assert.strictEqual(yield* balanceOf(to), 1_234n)
    }))

  it.effect("a transfer the caller does not record is never sent, and its nonce stays free", () =>
    Effect.gen(function*() {
      const to = fresh()
      const transfer = yield* transferTo(to, 5n)
      const nonce = yield* collectionNonce
      const stash: Array<SignedTransfer> = []
      assert.isTrue(Option.isNone(yield* sendRecording(transfer, stash, false)))
      assert.strictEqual(stash.length, 1)
      assert.strictEqual(yield* collectionNonce, nonce)
      const next = Option.getOrThrow(yield* sendRecording(transfer, []))
      assert.strictEqual(yield* decided(transfer, next), "succeeded")
      assert.strictEqual(yield* balanceOf(to), 5n)
      assert.strictEqual(yield* collectionNonce, nonce + 1)
    }))

  it.effect("a transfer that would revert (more than the collection holds) fails before anything is signed", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const held = yield* balanceOf(chain.collectionAddress)
      const stash: Array<SignedTransfer> = []
      const error = yield* Effect.flip(sendRecording(yield* transferTo(fresh(), held + 1n), stash))
      assert.strictEqual(error._tag, "PayoutReverted")
      assert.deepStrictEqual(stash, [])
    }))

  it.effect("a recorded transfer never broadcast (a crash) is pending until resent, then succeeds", () =>
    Effect.gen(function*() {
      const to = fresh()
      const transfer = yield* transferTo(to, 77n)
      const recorded = yield* signedByCollection(to, 77n, yield* collectionNonce)
      assert.strictEqual(yield* Payouts.use((p) => p.observe(transfer, recorded)), "pending")
      yield* Payouts.use((payouts) => payouts.resend(transfer.asset, recorded))
      assert.strictEqual(yield* decided(transfer, recorded), "succeeded")
      assert.strictEqual(yield* balanceOf(to), 77n)
    }))

  it.effect("a recorded transfer whose nonce another transaction took is dropped: it can never be included", () =>
    Effect.gen(function*() {
      const lost = fresh()
      const lostTransfer = yield* transferTo(lost, 10n)
      const recorded = yield* signedByCollection(lost, 10n, yield* collectionNonce)
      // The sender, not knowing of it, sends another transfer with the same nonce.
      const other = yield* transferTo(fresh(), 11n)
      const sent = Option.getOrThrow(yield* sendRecording(other, []))
      assert.strictEqual(yield* decided(other, sent), "succeeded")
      assert.strictEqual(yield* Payouts.use((p) => p.observe(lostTransfer, recorded)), "dropped")
      // Broadcasting it again is harmless: the node refuses its nonce.
      yield* Payouts.use((payouts) => payouts.resend(lostTransfer.asset, recorded))
      assert.strictEqual(yield* Payouts.use((p) => p.observe(lostTransfer, recorded)), "dropped")
      assert.strictEqual(yield* balanceOf(lost), 0n)
    }))

  it.effect("an included transfer that reverted is reverted; one paying someone else is failed", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const client = yield* localClient
      const to = fresh()
      const held = yield* balanceOf(chain.collectionAddress)
      const reverting = yield* signedByCollection(to, held + 1n, yield* collectionNonce)
      yield* Effect.promise(() => client.sendRawTransaction({ serializedTransaction: reverting.raw as Hex }))
      assert.strictEqual(yield* decided(yield* transferTo(to, held + 1n), reverting), "reverted")

      const elsewhere = yield* signedByCollection(fresh(), 3n, yield* collectionNonce)
      yield* Effect.promise(() => client.sendRawTransaction({ serializedTransaction: elsewhere.raw as Hex }))
      assert.strictEqual(yield* decided(yield* transferTo(to, 3n), elsewhere), "failed")
    }))

  it.effect("a chain without collectionPrivateKey cannot pay out: its transfers wait (ChainUnavailable)", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const base = LocalChain.settingsFor(chain, 1)
      const keyless = { ...base, chains: base.chains.map(({ collectionPrivateKey: _key, ...rest }) => rest) }
      const payouts = yield* ViemPayouts.make().pipe(Effect.provide(Layer.orDie(ChainConfig.layer(keyless))))
      const transfer = yield* transferTo(fresh(), 1n)
      const error = yield* Effect.flip(payouts.send(transfer, () => Effect.succeed(true)))
      assert.strictEqual(error._tag, "ChainUnavailable")
      assert.include(error.message, "has no usable payout signer")
      const exit = yield* Effect.exit(payouts.resend(transfer.asset, yield* signedByCollection(fresh(), 1n, 0)))
      assert.isTrue(Exit.isFailure(exit))
    }))
})
