import { Context, type Effect, type Option } from "effect"
import type { RefundId } from "../ids/Ids.ts"
import type { Payout } from "../payout/Payout.ts"
import type { Refund } from "../refund/Refund.ts"
import type { RefundClaim } from "../refund/RefundClaim.ts"

/** A claim refund with its claim. */
export interface ClaimedRefund {
  readonly refund: Refund
  readonly claim: RefundClaim
}

/**
 * The claims of refunds to an address the buyer chooses. Tokens are handed in as the link carries
 * them; the store keeps and looks them up by their hash only. A claim is created with its refund
 * (`PlannedRefund.claim`, `RefundRepository.insert`).
 */
export class RefundClaimStore extends Context.Service<RefundClaimStore, {
  /** The refund `id` and its claim; none when the refund is not a claim refund (or does not exist). */
  readonly find: (id: RefundId) => Effect.Effect<Option.Option<ClaimedRefund>>
  /** The claim refund whose current link carries `token`. */
  readonly findByToken: (token: string) => Effect.Effect<Option.Option<ClaimedRefund>>
  /** Gives the unclaimed claim of refund `id` a new token (the old one stops working); false when it was claimed. */
  readonly reissue: (id: RefundId, link: { readonly token: string; readonly expiresAt: number }) => Effect.Effect<boolean>
  /**
   * Claims the refund whose link carries `token` for `recipient` (CAIP-10) at `now`, only if the link
   * is unclaimed and not expired at `now`, and stores the payouts `payouts` makes of the refund and
   * its payment's payouts so far (of every kind), in one transaction with the payment locked (as a refund
   * insert locks it): two claims at once make one set of payouts. None when the link did not claim.
   */
  readonly claim: (
    token: string,
    recipient: string,
    now: number,
    payouts: (refund: Refund, prior: ReadonlyArray<Payout>) => ReadonlyArray<Payout>
  ) => Effect.Effect<Option.Option<Refund>>
}>()("@paygate/domain/RefundClaimStore") {}
