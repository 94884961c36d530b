import { CancelledBy, ChargeStatus, EndedReason, SubscriptionStatus } from "@paygate/domain"
import { Schema } from "effect"
import { NonNegativeInt } from "./NonNegativeInt.ts"

/** A subscription as the partner API and its webhooks show it (the domain's `toSubscriptionRecord`). */
export const SubscriptionRecord = Schema.Struct({
  id: Schema.String,
  planId: Schema.String,
  merchantId: Schema.String,
  status: SubscriptionStatus,
  endedReason: Schema.NullOr(EndedReason),
  cancelledBy: Schema.NullOr(CancelledBy),
  payer: Schema.String.annotate({ description: "CAIP-10 account charged each period." }),
  receiver: Schema.String.annotate({ description: "CAIP-10 account each charge goes to (the settlement destination when the buyer signed)." }),
  asset: Schema.String.annotate({ description: "CAIP-19 token charged." }),
  network: Schema.String.annotate({ description: "CAIP-2 chain of the asset." }),
  amountPerPeriod: Schema.String.annotate({ description: "The most each period takes, token base units." }),
  periodSeconds: NonNegativeInt,
  start: NonNegativeInt.annotate({ description: "When the first period begins (Unix seconds)." }),
  periods: Schema.NullOr(NonNegativeInt).annotate({ description: "Periods in the term; null until cancelled." }),
  subscribeTx: Schema.NullOr(Schema.String),
  cancelTx: Schema.NullOr(Schema.String),
  replacedBy: Schema.NullOr(Schema.String).annotate({ description: "The subscription that took over from the next period, when the payer moved to new terms." }),
  createdAt: NonNegativeInt,
  updatedAt: NonNegativeInt
}).annotate({ identifier: "Subscription" })

/** One period's charge of a subscription. */
export const SubscriptionChargeRecord = Schema.Struct({
  periodIndex: NonNegativeInt,
  periodStart: NonNegativeInt,
  amount: Schema.String.annotate({ description: "Token base units." }),
  status: ChargeStatus,
  failedAttempts: NonNegativeInt,
  nextAttemptAt: Schema.NullOr(NonNegativeInt).annotate({ description: "When it is tried next, while pending (Unix seconds)." }),
  txHash: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String)
}).annotate({ identifier: "SubscriptionCharge" })
