/**
 * Pull payments in tokens without EIP-3009, through Permit2 (see `Permit2.ts`):
 *
 * - verify: the approve transactions the wallet reports (if any) are the buyer's `approve(Permit2, …)`
 *   calls on the token and did not revert; once they are all mined, the buyer's allowance to Permit2
 *   covers the amount; the permit's nonce is unused; and the buyer signed exactly the option's permit
 *   (token, amount, our executor as spender, nonce, deadline) under Permit2's domain on that chain.
 *   An approve still pending is accepted: the executor's simulation waits for it (a refused submission
 *   is tried again while the permit is valid, then the payment fails).
 * - submit: the executor calls `permitTransferFrom` to the collection address, after the same
 *   simulation and gas checks as an EIP-3009 authorization (`SubmitAuthorization.ts`).
 * - used: Permit2 logs nothing for a signature transfer, so a used nonce is traced to the token's
 *   `Transfer` from the buyer to the collection address whose transaction is that permit's call.
 *
 * @module
 */
import { type AuthorizationProof, type ChainUnavailable, ParamsValidation, type SubmissionRefused, traced } from "@paygate/domain"
import { type Duration, Effect, Option } from "effect"
import { type Address, decodeFunctionData, getAddress, type Hash, type Hex, hashTypedData } from "viem"
import { type Chains, viaPermit2 } from "./ChainConfig.ts"
import type { ChainRuntime } from "./ChainRuntime.ts"
import { eip3009TokenAbi } from "./Eip3009.ts"
import { sameAddress } from "./EvmAddress.ts"
import {
  allowanceAbi,
  noncePosition,
  permit2Abi,
  permit2Address,
  permitFor,
  permitReference,
  permitTransferFromCalldata,
  permitTransferFromTypedData
} from "./Permit2.ts"
import { resolveTarget } from "./ProofTarget.ts"
import { type ChainRpcError, rpc } from "./RpcCall.ts"
import { isHexBytes } from "./Signature.ts"
import { ChainSubmitError, sendUnlessUsed } from "./SubmitAuthorization.ts"
import { checkShape, checkSigner, type VerifyContext } from "./VerifyAuthorization.ts"
import { findTransaction, orNotFound } from "./VerifyPushTransfer.ts"

const isNonce = (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text)

const invalid = (message: string) => Effect.fail(new ParamsValidation({ message }))

/** How far back (blocks) to look for the transfer a used permit made: well past any deadline. */
const usedLookbackBlocks = 50_000n

const transferEvent = eip3009TokenAbi.find((item) => item.type === "event" && item.name === "Transfer")!

/** Whether the approve `hash` is mined: `true`, still pending: `false`; refuses one that is not the buyer's approve of Permit2. */
const checkApproval = Effect.fnUntraced(function*(
  runtime: ChainRuntime,
  token: Address,
  payer: Address,
  hash: Hash,
  position: number,
  lookupWindow: Duration.Input | undefined
) {
  const which = `The approve transaction results[${position}]`
  const found = yield* findTransaction(runtime, hash, lookupWindow)
  if (Option.isNone(found)) return yield* invalid(`${which} was not found on chain.`)
  const tx = found.value
  if (tx.chainId !== undefined && tx.chainId !== runtime.chainNumber) return yield* invalid(`${which} is for another chain.`)
  if (!sameAddress(tx.from, payer)) return yield* invalid(`${which} was not sent by the option's account.`)
  const approve = tx.to !== null && sameAddress(tx.to, token)
    ? Option.liftThrowable(() => decodeFunctionData({ abi: allowanceAbi, data: tx.input }))()
    : Option.none()
  if (Option.isNone(approve) || approve.value.functionName !== "approve" || !sameAddress(approve.value.args[0], permit2Address)) {
    return yield* invalid(`${which} is not an approve of Permit2 on the option's token.`)
  }
  const receipt = yield* rpc(runtime.chainId, "eth_getTransactionReceipt", () =>
    orNotFound(runtime.client.getTransactionReceipt({ hash }))).pipe(Effect.orDie)
  if (receipt?.status === "reverted") return yield* invalid(`${which} reverted.`)
  return receipt !== undefined
})

/** Whether `payer` used the permit `nonce` on Permit2 (its bit in the unordered bitmap is set). */
const nonceUsed = (runtime: ChainRuntime, payer: Address, nonce: bigint) => {
  const { wordPos, bit } = noncePosition(nonce)
  return rpc(runtime.chainId, "nonceBitmap", () =>
    runtime.client.readContract({ address: permit2Address, abi: permit2Abi, functionName: "nonceBitmap", args: [payer, wordPos] })).pipe(
      Effect.map((bitmap) => (bitmap & bit) !== 0n)
    )
}

/** Checks a Permit2 pull payment's proof; see the module documentation. */
export const verifyPermit2 = Effect.fnUntraced(function*(
  context: VerifyContext & { readonly lookupWindow?: Duration.Input | undefined },
  proof: AuthorizationProof
): Effect.fn.Return<void, ParamsValidation> {
  const { runtime, asset, token, payer } = yield* resolveTarget(context.chains, context.runtimes, proof)
  if (!viaPermit2(asset)) return yield* invalid("The option's asset is not paid through Permit2.")
  const { nonce, signature } = yield* checkShape(proof)
  const approvals = proof.approvals ?? []
  const mined = yield* Effect.forEach(approvals, (hash, i) => checkApproval(runtime, token, payer, hash as Hash, i, context.lookupWindow))
  if (mined.every(Boolean)) {
    const allowance = yield* rpc(runtime.chainId, "allowance", () =>
      runtime.client.readContract({ address: token, abi: allowanceAbi, functionName: "allowance", args: [payer, permit2Address] })).pipe(Effect.orDie)
    if (allowance < proof.value) {
      return yield* invalid(
        approvals.length === 0
          ? "The account's allowance to Permit2 is below the amount: ask for options again and send the approve transaction first."
          : "The approve transactions left the account's allowance to Permit2 below the amount."
      )
    }
  }
  if (yield* nonceUsed(runtime, payer, BigInt(nonce)).pipe(Effect.orDie)) {
    return yield* invalid("This permit was already used (its Permit2 nonce is spent); ask for options again.")
  }
  const permit = permitFor(token, proof.value, runtime.executor.address, nonce, proof.validBefore)
  const hash = hashTypedData(permitTransferFromTypedData(runtime.chainNumber, permit))
  return yield* checkSigner(context, runtime, payer, hash, signature).pipe(Effect.catchTag("ChainRpcError", Effect.die))
}, traced("ChainGateway.verifyPermit2"))

/** The transaction that used the permit `nonce` of `payer` on `token`, if one did. */
export const permitUse = (runtime: ChainRuntime, token: Address, payer: Address, nonce: Hex): Effect.Effect<Hash | undefined, ChainRpcError> =>
  Effect.gen(function*() {
    if (!(yield* nonceUsed(runtime, payer, BigInt(nonce)))) return undefined
    const { chainId, client } = runtime
    const collection = getAddress(runtime.settings.collectionAddress)
    const head = yield* rpc(chainId, "eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
    const logs = yield* rpc(chainId, "eth_getLogs", () =>
      client.getLogs({
        address: token,
        event: transferEvent,
        args: { from: payer, to: collection },
        fromBlock: head > usedLookbackBlocks ? head - usedLookbackBlocks : 0n,
        toBlock: head,
        strict: true
      }))
    for (const log of logs) {
      if (log.transactionHash === null) continue
      const hash = log.transactionHash
      const tx = yield* rpc(chainId, "eth_getTransactionByHash", () => client.getTransaction({ hash }))
      const reference = permitReference(tx, { from: log.args.from, token, value: log.args.value }, collection)
      if (reference !== null && reference === nonce.toLowerCase()) return hash
    }
    return undefined
  })

/** Submits a Permit2 pull payment through the chain's executor; answers the transaction hash. */
export const submitPermit2 = Effect.fn("ChainGateway.submitPermit2")(function*(
  context: { readonly chains: Chains; readonly runtimes: ReadonlyMap<string, ChainRuntime> },
  proof: AuthorizationProof
): Effect.fn.Return<Hash, ChainUnavailable | SubmissionRefused> {
  const { runtime, token, payer } = yield* resolveTarget(context.chains, context.runtimes, proof).pipe(
    Effect.mapError((error: ParamsValidation) => new ChainSubmitError({ message: `Cannot submit: ${error.message}` })),
    Effect.orDie
  )
  const { nonce, signature } = proof
  if (!isNonce(nonce) || !isHexBytes(signature)) {
    return yield* Effect.die(new ChainSubmitError({ message: "Cannot submit: the permit's nonce or signature is not hex." }))
  }
  const permit = permitFor(token, proof.value, runtime.executor.address, nonce, proof.validBefore)
  const data = permitTransferFromCalldata(permit, payer, getAddress(runtime.settings.collectionAddress), signature)
  return yield* sendUnlessUsed(runtime, payer, { to: permit2Address, data }, permitUse(runtime, token, payer, nonce))
})
