import { Schema } from "effect"
import { RefundId } from "../ids/Ids.ts"

/** How long a claim link works: two weeks to open a message and answer it; a new link can be issued at any time. */
export const claimLinkMillis = 14 * 24 * 60 * 60 * 1000

/**
 * The buyer's side of a refund to an address they choose: the refund has no payout until the
 * buyer names the address through its one-time link (whose token the store keeps hashed only).
 */
export class RefundClaim extends Schema.Class<RefundClaim>("paygate/RefundClaim")({
  refundId: RefundId,
  /** Unix milliseconds: the link no longer works from then on. */
  expiresAt: Schema.Int,
  /** Unix milliseconds, once claimed. */
  claimedAt: Schema.NullOr(Schema.Int),
  /** The chosen address (CAIP-10), once claimed. */
  recipient: Schema.NullOr(Schema.String)
}) {}

/** A new claim link: its token (shown once, in the link) and when it expires (Unix milliseconds). */
export interface ClaimLink {
  readonly token: string
  readonly expiresAt: number
}
