/**
 * The domain's `WalletActions` port on eip155 chains (API rules §10):
 *
 * - pull: one `walletRpc` action, `eth_signTypedData_v4` with `[buyer address, typed data JSON]`; the
 *   EIP-712 domain is read from the token (cached, see `TokenDomains.ts`);
 * - a held payment's pull (claims with `escrow`): the same action, of the `ReceiveWithAuthorization`
 *   to the chain's payment escrow whose nonce is the hash of the terms (`PaymentEscrow.ts`);
 * - pull through Permit2 (tokens without EIP-3009): the approve transactions the buyer still needs,
 *   then the permit to sign (`Permit2Actions.ts`);
 * - push: one `build` action; `/fetch` resolves it with {@link pushTransferActions} into an
 *   `eth_sendTransaction` of `transfer(collectionAddress, value)` with the reference appended;
 * - push in the chain's native asset: that `eth_sendTransaction` at once (value to the collection
 *   address, the reference as calldata; see `NativeAsset.ts`), nothing to build.
 *
 * Claims come from option ids this service issued, so an asset or account that does not resolve
 * means the configuration changed under a live option: a defect, not a user error.
 *
 * @module
 */
import { type Action, Caip, type OptionClaims, WalletActions, traced } from "@paygate/domain"
import { Effect, Layer, Result, Schema } from "effect"
import type { Address, Hex, PublicClient } from "viem"
import { type Chains, ChainsConfig, executorAddress, lookupAsset, rpcEndpoints, viaPermit2 } from "./ChainConfig.ts"
import { transferWithAuthorizationJson } from "./Eip3009.ts"
import { escrowTermsHash, escrowTermsOf } from "./PaymentEscrow.ts"
import { permit2Actions } from "./Permit2Actions.ts"
import { isNativeToken, nativeTransferAction } from "./NativeAsset.ts"
import { encodeTransferWithReference, isReference } from "./PushTransfer.ts"
import { makeClient } from "./RpcCall.ts"
import * as TokenDomains from "./TokenDomains.ts"

/** Option claims that do not fit the configuration (asset gone, malformed account or nonce). */
export class WalletActionsError extends Schema.TaggedError<WalletActionsError>()("WalletActionsError", {
  message: Schema.String
}) {}

/** What the actions of one option are built from. */
interface Resolved {
  readonly chainId: string
  readonly token: Address
  readonly payer: Address
  readonly collection: Address
  /** The chain's payment escrow, if it has one. */
  readonly escrow: Address | undefined
  /** The chain's executor: the operator of held payments. */
  readonly executor: Address
  readonly value: bigint
  /** Pulled through Permit2 (no EIP-3009). */
  readonly permit2: boolean
}

const isNonce = (text: string): text is Hex => /^0x[0-9a-fA-F]{64}$/.test(text)

/** Resolves claims against the configuration; the failure is a phrase for error messages. */
const resolve = (chains: Chains, claims: OptionClaims): Result.Result<Resolved, string> => {
  const found = lookupAsset(chains, claims.asset)
  if (found === undefined) return Result.fail(`asset ${claims.asset} is not configured`)
  const account = Caip.validateAccountId(claims.account)
  if (Result.isFailure(account) || account.success.chainId !== found.chain.chainId) {
    return Result.fail(`account ${claims.account} is not an account on ${found.chain.chainId}`)
  }
  if (!/^[0-9]{1,78}$/.test(claims.value)) return Result.fail(`value ${claims.value} is not an amount`)
  return Result.succeed({
    chainId: found.chain.chainId,
    token: found.token,
    // validateAccountId returned the EIP-55 form of an eip155 address.
    payer: account.success.address as Address,
    collection: found.chain.collectionAddress,
    escrow: found.chain.paymentEscrow as Address | undefined,
    executor: executorAddress(found.chain),
    value: BigInt(claims.value),
    permit2: viaPermit2(found.asset)
  })
}

/**
 * The `walletRpc` actions that complete a push option: one `eth_sendTransaction` from the buyer to
 * the token, no ether, calldata `transfer(collectionAddress, value)` followed by the 16-byte reference
 * (the option's nonce). Used by `/fetch` to resolve the option's `build` action.
 */
export const pushTransferActions = (
  chains: Chains,
  claims: OptionClaims
): Result.Result<ReadonlyArray<Action>, string> =>
  Result.flatMap(resolve(chains, claims), (option) => {
    if (!isReference(claims.nonce)) return Result.fail("the option's reference is not 16 bytes of hex")
    if (isNativeToken(option.token)) return Result.succeed([nativeTransferAction(option, claims.nonce)])
    return Result.succeed([{
      type: "walletRpc",
      data: {
        chain_id: option.chainId,
        method: "eth_sendTransaction",
        params: [{
          from: option.payer,
          to: option.token,
          value: "0x0",
          data: encodeTransferWithReference(option.collection, option.value, claims.nonce)
        }]
      }
    }])
  })

/** The `build` data of a push option: opaque to wallets, it names the transfer's reference. */
export const buildData = (claims: OptionClaims): string => `erc20-transfer:${claims.nonce}`

/** Builds the actions over the configured chains, reading token domains through each chain's RPC. */
export const make: Effect.Effect<WalletActions["Service"], never, ChainsConfig> = Effect.gen(function*() {
  const chains = yield* ChainsConfig
  const domainsByChain = new Map<string, TokenDomains.TokenDomains>()
  const permit2ByChain = new Map<string, { readonly client: PublicClient; readonly spender: Address }>()
  for (const settings of chains.settings.chains) {
    const client = makeClient(rpcEndpoints(settings))
    domainsByChain.set(settings.chainId, yield* TokenDomains.make({ chainId: settings.chainId, client }))
    permit2ByChain.set(settings.chainId, { client, spender: executorAddress(settings) })
  }

  const defect = (message: string) => Effect.die(new WalletActionsError({ message: `Cannot build wallet actions: ${message}.` }))

  const actionsFor = Effect.fnUntraced(function*(
    claims: OptionClaims,
    _optionId: string,
    validBefore: number
  ): Effect.fn.Return<ReadonlyArray<Action>> {
    const resolved = resolve(chains, claims)
    if (Result.isFailure(resolved)) return yield* defect(resolved.failure)
    const option = resolved.success
    if (claims.kind === "push") {
      if (!isNativeToken(option.token)) return [{ type: "build", data: { data: buildData(claims) } }]
      // Native: nothing to build, the transaction is fully known.
      const actions = pushTransferActions(chains, claims)
      return Result.isSuccess(actions) ? actions.success : yield* defect(actions.failure)
    }
    const domains = domainsByChain.get(option.chainId)
    const permit2 = permit2ByChain.get(option.chainId)
    if (domains === undefined || permit2 === undefined || !isNonce(claims.nonce)) return yield* defect("the option's chain or nonce is wrong")
    if (option.permit2) {
      return yield* permit2Actions({
        ...option,
        ...permit2,
        chainNumber: Number(option.chainId.slice("eip155:".length)),
        nonce: claims.nonce,
        validBefore
      }).pipe(Effect.orDie)
    }
    const domain = yield* domains.get(option.token).pipe(Effect.orDie)
    const authorization = { from: option.payer, value: option.value, validAfter: 0n, validBefore: BigInt(validBefore) }
    const held = claims.escrow
    const typedData = held === undefined
      ? transferWithAuthorizationJson(domain, { ...authorization, to: option.collection, nonce: claims.nonce })
      : yield* Effect.gen(function*() {
        const escrow = option.escrow
        if (escrow === undefined) return yield* defect(`${option.chainId} has no payment escrow for the held payment`)
        const terms = escrowTermsOf({ operator: option.executor, payer: option.payer, token: option.token, authorizeBefore: validBefore, salt: claims.nonce, terms: held })
        if (Result.isFailure(terms)) return yield* defect(`the option's escrow terms: ${terms.failure}`)
        const nonce = escrowTermsHash(domain.chainId, escrow, terms.success)
        return transferWithAuthorizationJson(domain, { ...authorization, to: escrow, nonce }, "ReceiveWithAuthorization")
      })
    return [{
      type: "walletRpc",
      data: { chain_id: option.chainId, method: "eth_signTypedData_v4", params: [option.payer, typedData] }
    }]
  }, traced("WalletActions.actionsFor"))

  return WalletActions.of({ actionsFor, buildData, pushTransfer: (claims) => pushTransferActions(chains, claims) })
})

/** The wallet actions of the configured chains. */
export const layer: Layer.Layer<WalletActions, never, ChainsConfig> = Layer.effect(WalletActions, make)
