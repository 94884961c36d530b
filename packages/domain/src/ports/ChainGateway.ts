import { Context, type Effect, type Option } from "effect"
import type { ParamsValidation } from "../errors/DomainErrors.ts"
import type { EscrowTerms } from "../hold/Hold.ts"
import type { ChainUnavailable } from "./ChainUnavailable.ts"
import type { SubmissionRefused } from "./SubmissionRefused.ts"

/** What the buyer hands over on confirm: a signed EIP-3009 authorization (pull) or a sent transaction (push). */
export type PaymentProof =
  | {
    readonly _tag: "Authorization"
    /** CAIP-10 account that must have signed. */
    readonly account: string
    /** CAIP-19 token. */
    readonly asset: string
    /** Collection address (recipient). */
    readonly to: string
    /** Token base units. */
    readonly value: bigint
    /** Unix seconds. */
    readonly validBefore: number
    /** 0x-prefixed 32-byte nonce recorded with the quote. */
    readonly nonce: string
    /** 0x-prefixed signature. */
    readonly signature: string
    /** Permit2 tokens: the hashes of the approve transactions the wallet sent before signing, in order. */
    readonly approvals?: ReadonlyArray<string> | undefined
    /**
     * A held payment's: the authorization is an EIP-3009 `ReceiveWithAuthorization` to the escrow
     * (`to`), submitted through the escrow's `authorize`; its signed nonce is the hash of these terms
     * with `nonce` as their salt.
     */
    readonly escrow?: EscrowTerms | undefined
  }
  | {
    readonly _tag: "Transaction"
    readonly account: string
    readonly asset: string
    readonly to: string
    readonly value: bigint
    /** 16-byte payment reference appended to the transfer calldata. */
    readonly reference: string
    readonly txHash: string
  }

/**
 * Outcome of a submitted transfer as the chain reports it. `unknown` (RPC down) never means failed.
 * `dropped`: not included, and the node no longer has the transaction (another transaction of its
 * sender took its nonce, or the node's pool evicted it), so it will not be included from there.
 */
export type ChainOutcome = "pending" | "succeeded" | "failed" | "unknown" | "dropped"

/** A pull payment's proof. */
export type AuthorizationProof = Extract<PaymentProof, { readonly _tag: "Authorization" }>

/** Access to the chains the service collects on. */
export class ChainGateway extends Context.Service<ChainGateway, {
  /** Checks that the proof is what the quote asked for (signer, token, amount, recipient, expiry). */
  readonly verify: (proof: PaymentProof) => Effect.Effect<void, ParamsValidation>
  /**
   * Broadcasts a pull payment's authorization through the executor; answers the transaction hash.
   * When the authorization was already used on chain (an earlier submission whose response was
   * lost), answers the hash of the transaction that used it instead of sending another. Sends
   * nothing (`SubmissionRefused`) when the transaction would revert, needs more gas than allowed,
   * or the executor's gas budget is spent.
   */
  readonly submit: (proof: AuthorizationProof) => Effect.Effect<string, ChainUnavailable | SubmissionRefused>
  /**
   * The transaction that used this authorization on chain, if one did (read only). Two workers
   * may both send an authorization whose first use was not mined yet: one transaction pays, the
   * other reverts, and the payment must follow the one that paid whichever hash was recorded.
   */
  readonly usedBy: (proof: AuthorizationProof) => Effect.Effect<Option.Option<string>, ChainUnavailable>
  /**
   * Whether the chain is past the authorization's `validBefore`: its latest block is stamped at or
   * after it, so no block to come can include it. Read before `usedBy`, an unused authorization
   * that is expired stays unused for good.
   */
  readonly expiredOnChain: (proof: AuthorizationProof) => Effect.Effect<boolean, ChainUnavailable>
  /**
   * Where a transaction stands, with the chain's required confirmations applied: it must pay the
   * chain's collection address, or `recipient` (CAIP-10, a deposit address) when given.
   */
  readonly observe: (asset: string, txHash: string, recipient?: string) => Effect.Effect<ChainOutcome>
  /** The EIP-712 domain name and version of an EIP-3009 token (CAIP-19), what a signer needs beside its address. */
  readonly tokenDomain: (asset: string) => Effect.Effect<{ readonly name: string; readonly version: string }, ChainUnavailable>
  /** The token balance (base units) of a CAIP-10 account, read from the chain. */
  readonly balanceOf: (asset: string, account: string) => Effect.Effect<bigint, ChainUnavailable>
}>()("@paygate/domain/ChainGateway") {}
