/**
 * Push payments through the viem ChainGateway on a real anvil chain: the buyer sends an ERC-20
 * transfer with the payment reference appended; the gateway verifies it and observes it.
 */
import { ChainGateway, ParamsValidation, type PaymentProof } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Hex } from "viem"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import { LocalChain } from "../../src/chain/LocalChain.ts"
import { encodeTransferWithReference } from "../../src/chain/PushTransfer.ts"
import {
  balanceOf,
  chainTestLayer,
  sendTokenCall,
  settledOutcome,
  transferCalldata,
  wallet
} from "./support/ChainTest.ts"

const reference = "0x0123456789abcdef0123456789abcdef"
const otherReference = "0xfedcba9876543210fedcba9876543210"
const amount = 7_500_000n

/** Sends `data` to TUSDC from anvil account `index` and answers the push proof a wallet would confirm with. */
const push = (index: number, data: Hex) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain
    const txHash = yield* sendTokenCall(anvilAccount(index).privateKey, data)
    return {
      _tag: "Transaction",
      account: `${chain.chainId}:${anvilAccount(index).address}`,
      asset: chain.usdcAssetId,
      to: chain.collectionAddress,
      value: amount,
      reference,
      txHash
    } satisfies PaymentProof
  })

const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    assert.instanceOf(error, ParamsValidation)
    return (error as ParamsValidation).message
  })

layer(chainTestLayer(), { excludeTestServices: true, timeout: "60 seconds" })("ViemChainGateway: push payments", (it) => {
  it.effect("a transfer with the reference appended verifies and is observed succeeded", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const before = yield* balanceOf(chain.collectionAddress)
      const proof = yield* push(2, encodeTransferWithReference(chain.collectionAddress, amount, reference))
      yield* gateway.verify(proof)
      // The reference is case-insensitive hex.
      yield* gateway.verify({ ...proof, reference: reference.toUpperCase().replace("0X", "0x") })
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, proof.txHash), "succeeded")
      assert.strictEqual(yield* balanceOf(chain.collectionAddress), before + amount)
    }))

  it.effect("the wrong reference, amount, sender, recipient or a plain transfer is refused", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const proof = yield* push(2, encodeTransferWithReference(chain.collectionAddress, amount, reference))
      assert.strictEqual(
        yield* refusal(gateway.verify({ ...proof, reference: otherReference })),
        "The transfer does not carry this payment's reference."
      )
      assert.strictEqual(
        yield* refusal(gateway.verify({ ...proof, value: amount + 1n })),
        "The transfer's amount is not the option's amount."
      )
      assert.strictEqual(
        yield* refusal(gateway.verify({ ...proof, account: `${chain.chainId}:${wallet(3).address}` })),
        "The transaction was not sent by the option's account."
      )
      const plain = yield* push(2, transferCalldata(chain.collectionAddress, amount))
      assert.strictEqual(
        yield* refusal(gateway.verify(plain)),
        "The transaction is not an ERC-20 transfer with a 16-byte payment reference appended."
      )
      const elsewhere = yield* push(2, encodeTransferWithReference(wallet(6).address, amount, reference))
      assert.strictEqual(
        yield* refusal(gateway.verify(elsewhere)),
        "The transfer's recipient is not the collection address."
      )
      // Mined and successful, but it pays someone else: never a success for this payment.
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, elsewhere.txHash), "failed")
    }))

  it.effect("an unknown transaction hash, a malformed reference and a reverted transfer are refused", () =>
    Effect.gen(function*() {
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const proof = yield* push(2, encodeTransferWithReference(chain.collectionAddress, amount, reference))
      assert.strictEqual(
        yield* refusal(gateway.verify({ ...proof, txHash: `0x${"56".repeat(32)}` })),
        "The transaction was not found on chain."
      )
      assert.strictEqual(
        yield* refusal(gateway.verify({ ...proof, reference: "0x1234" })),
        "The payment reference is not 16 bytes of hex."
      )
      // Account #7 sends more than it holds: mined, reverted.
      const tooMuch = 2_000_000n * 10n ** 6n
      const reverted = yield* push(7, encodeTransferWithReference(chain.collectionAddress, tooMuch, reference))
      assert.strictEqual(yield* refusal(gateway.verify({ ...reverted, value: tooMuch })), "The transaction reverted.")
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, reverted.txHash), "failed")
    }))
})
