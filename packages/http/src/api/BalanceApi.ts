import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PartnerAuth } from "./Security.ts"
import * as Wire from "./wire/index.ts"

const count = Wire.NonNegativeInt
const baseUnits = (description: string) => Schema.String.annotate({ description: `${description} (base units, decimal string).` })

/** What the partner's payments of the key's mode add up to: all of them, not a page. */
export const Balance = Schema.Struct({
  currencies: Schema.Array(Schema.Struct({
    amount: Wire.Amount.annotate({ description: "Sum of the succeeded payments' amounts in this currency." }),
    count: count.annotate({ description: "How many succeeded payments." })
  })),
  assets: Schema.Array(Schema.Struct({
    asset: Schema.String.annotate({ description: "CAIP-19 token paid with." }),
    value: baseUnits("Sum of the token amounts the succeeded payments paid"),
    count
  })),
  days: Schema.Array(Schema.Struct({
    date: Schema.String.annotate({ description: "YYYY-MM-DD (UTC)." }),
    created: count.annotate({ description: "Payments created that day." }),
    succeeded: count.annotate({ description: "Of those, how many succeeded." })
  })).annotate({ description: "The days from `since` to `until` that have payments, oldest first." }),
  since: count.annotate({ description: "Unix seconds: start of the first day of `days`." }),
  until: count.annotate({ description: "Unix seconds: end of today (UTC)." }),
  held: Schema.Array(Schema.Struct({
    asset: Schema.String,
    value: baseUnits("Paid to the service's collection address (or a deposit address) by succeeded payments and neither settled nor refunded yet")
  })).annotate({ description: "What the service recorded, not a balance read from the chain." }),
  settled: Schema.Array(Schema.Struct({
    asset: Schema.String,
    destination: Schema.String.annotate({ description: "CAIP-10 settlement destination." }),
    completed: baseUnits("Forwarded on chain"),
    pending: baseUnits("Being forwarded")
  }))
}).annotate({ identifier: "Balance" })

/** Partner API: balance and volume of the partner's payments in the key's mode. */
export class BalanceApi extends HttpApiGroup.make("balance")
  .add(
    HttpApiEndpoint.get("get", "/v1/balance", {
      query: { days: Schema.optionalKey(Schema.String.annotate({ description: "Days of `days`, today included: 1 to 366; default 30." })) },
      success: Balance
    }).annotate(OpenApi.Summary, "Totals per currency and token, payments per day, and funds held and settled")
      .annotate(
        OpenApi.Description,
        "Computed over every payment of the partner in the key's mode. `held` and `settled` are the service's records " +
          "(succeeded payments not yet forwarded or refunded; settlements per destination), not balances read from the chain."
      )
  )
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Balance")
{}
