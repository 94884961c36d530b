import { Effect, Option } from "effect"
import type { Mode } from "../payment/Payment.ts"
import { AssetCatalog, isEip3009, type PayableAsset } from "../ports/AssetCatalog.ts"
import { type AuthorizationProof, ChainGateway } from "../ports/ChainGateway.ts"
import { NetworkModes, type NetworkModesShape } from "../ports/NetworkModes.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import { exactScheme, X402Reason, type X402Request, x402Version } from "../x402/X402Terms.ts"
import { nowSeconds } from "./PaymentChanges.ts"

/** A payment that passed every check: what settling it needs. */
export interface CheckedPayment {
  readonly asset: PayableAsset
  /** CAIP-10 account of the payer. */
  readonly payer: string
  readonly proof: AuthorizationProof
}

/** A refused payment: x402's reason, a message saying what to change, and the payer when known. */
export interface X402Refusal {
  readonly _tag: "X402Refusal"
  readonly reason: X402Reason
  readonly message: string
  readonly payer?: string | undefined
}

/** Refuses with `reason`. */
export const refuse = (reason: X402Reason, message: string, payer?: string): Effect.Effect<never, X402Refusal> =>
  Effect.fail({ _tag: "X402Refusal", reason, message, payer })

/** Seconds an authorization must still be valid when checked: time to send it (the reference facilitator's margin). */
const minValiditySeconds = 6

const isAddress = (text: string) => /^0x[0-9a-fA-F]{40}$/.test(text)
const isUint = (text: string) => /^[0-9]{1,78}$/.test(text)
const isNonce = (text: string) => /^0x[0-9a-fA-F]{64}$/.test(text)
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** The accepted EIP-3009 token at `address` on `network`, among the tokens of networks of `mode`. */
export const findAsset = (catalog: AssetCatalog["Service"], modes: NetworkModesShape, mode: Mode, network: string, address: string) =>
  modes.modeOf(network) === mode
    ? catalog.assetsOn(network).find((a) => isEip3009(a) && same(a.assetId.split(":").at(-1) ?? "", address))
    : undefined

/**
 * The facilitator's checks of an `exact` EIP-3009 payment for requirements, in the order the
 * reference facilitator makes them, then the chain's: the signature (by the adapter that confirms
 * checkout payments), the authorization unused, the payer's balance. `payTo` must be the
 * collection address of the token's chain: paygate receives, then settles to the merchant.
 */
export const makeX402Checks = Effect.gen(function*() {
  const catalog = yield* AssetCatalog
  const modes = yield* NetworkModes
  const chain = yield* ChainGateway
  const screening = yield* SanctionsScreening

  return Effect.fnUntraced(function*(mode: Mode, request: X402Request) {
    const { payment, requirements } = request
    if (request.x402Version !== x402Version || payment.x402Version !== x402Version) {
      return yield* refuse(X402Reason.version, `paygate speaks x402 version ${x402Version} only.`)
    }
    if (requirements.scheme !== exactScheme || payment.accepted.scheme !== exactScheme) {
      return yield* refuse(X402Reason.scheme, `paygate settles the "${exactScheme}" scheme only.`)
    }
    if (payment.accepted.network !== requirements.network) {
      return yield* refuse(X402Reason.networkMismatch, `The payment is for ${payment.accepted.network}, the requirements for ${requirements.network}.`)
    }
    const asset = findAsset(catalog, modes, mode, requirements.network, requirements.asset)
    if (asset === undefined) {
      const served = catalog.all.some((a) => a.chainId === requirements.network && modes.modeOf(a.chainId) === mode)
      return yield* served
        ? refuse(X402Reason.asset, `paygate takes no EIP-3009 token ${requirements.asset} on ${requirements.network} for this merchant; GET /x402/supported lists what it takes.`)
        : refuse(X402Reason.network, `paygate settles nothing on ${requirements.network} for this merchant (${mode} keys use ${mode === "sandbox" ? "test" : "real"} networks); GET /x402/supported lists them.`)
    }
    const { authorization, signature } = payment
    if (authorization === undefined || signature === undefined) {
      return yield* refuse(X402Reason.payload, "The payload must carry an EIP-3009 authorization and its signature.")
    }
    const { from, to, value, validAfter, validBefore, nonce } = authorization
    if (!isAddress(from) || !isAddress(to) || !isUint(value) || !isUint(validAfter) || !isUint(validBefore) || !isNonce(nonce)) {
      return yield* refuse(X402Reason.payload, "The authorization must hold from and to addresses, value, validAfter and validBefore as decimal strings and a 32-byte hex nonce.")
    }
    const payer = `${asset.chainId}:${from}`
    if (!same(requirements.payTo, asset.collectionAddress)) {
      return yield* refuse(X402Reason.recipient, `payTo must be paygate's receiving address on ${asset.chainId}, ${asset.collectionAddress}.`, payer)
    }
    if (!same(to, requirements.payTo)) return yield* refuse(X402Reason.recipient, "The authorization does not pay the requirements' payTo.", payer)
    if (!isUint(requirements.amount) || BigInt(value) !== BigInt(requirements.amount)) {
      return yield* refuse(X402Reason.value, `The authorization moves ${value} base units; the requirements ask for exactly ${requirements.amount}.`, payer)
    }
    if (BigInt(value) === 0n) return yield* refuse(X402Reason.value, "The authorization moves nothing.", payer)
    const now = yield* nowSeconds
    if (BigInt(validAfter) > BigInt(now)) return yield* refuse(X402Reason.validAfter, "The authorization is not valid yet (validAfter is in the future).", payer)
    // Submission sends validAfter 0, what x402 clients sign.
    if (BigInt(validAfter) !== 0n) return yield* refuse(X402Reason.validAfter, "paygate settles authorizations with validAfter 0 only.", payer)
    if (BigInt(validBefore) < BigInt(now + minValiditySeconds)) {
      return yield* refuse(X402Reason.validBefore, "The authorization has expired, or expires too soon to be settled (validBefore).", payer)
    }
    if (yield* screening.isSanctioned(payer)) return yield* refuse(X402Reason.payload, "This account cannot make payments.", payer)
    const proof: AuthorizationProof = {
      _tag: "Authorization",
      account: payer,
      asset: asset.assetId,
      to: asset.collectionAddress,
      value: BigInt(value),
      validBefore: Number(validBefore),
      nonce: nonce.toLowerCase(),
      signature
    }
    yield* chain.verify(proof).pipe(Effect.catchTag("ParamsValidation", (error) => refuse(X402Reason.signature, error.message, payer)))
    const unavailable = (error: { readonly message: string }) =>
      refuse(X402Reason.verifyError, `The chain could not be read to check the payment; try again. (${error.message})`, payer)
    const used = yield* chain.usedBy(proof).pipe(Effect.catchTag("ChainUnavailable", unavailable))
    if (Option.isSome(used)) return yield* refuse(X402Reason.nonceUsed, `This authorization was already used on chain (${used.value}).`, payer)
    const balance = yield* chain.balanceOf(asset.assetId, payer).pipe(Effect.catchTag("ChainUnavailable", unavailable))
    if (balance < BigInt(value)) {
      return yield* refuse(X402Reason.balance, `The payer holds ${balance} base units of ${asset.symbol}; the payment moves ${value}.`, payer)
    }
    return { asset, payer, proof } satisfies CheckedPayment
  })
})
