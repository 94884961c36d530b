import * as HandlerGroup from "./HandlerGroup.ts"
import { fiatAmount, volumeSummaries } from "@paygate/domain"
import { Effect } from "effect"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const seconds = (ms: number) => Math.floor(ms / 1000)

/** Partner API balance handler: `volumeSummaries` as the wire `Balance` (decimal strings, Unix seconds). */
export const BalanceHandlers = HandlerGroup.group(
  PaygateApi,
  "balance",
  Effect.fn(function*(handlers) {
    const summarize = yield* volumeSummaries
    return handlers.handle("get", ({ query }) =>
      Effect.gen(function*() {
        const summary = yield* summarize(yield* partnerAccess, query.days)
        return {
          currencies: summary.currencies.map((c) => ({ amount: fiatAmount(c.currency, c.value), count: c.count })),
          assets: summary.assets.map((a) => ({ asset: a.asset, value: a.value.toString(), count: a.count })),
          days: summary.days.map((d) => ({ date: d.day, created: d.created, succeeded: d.succeeded })),
          since: seconds(summary.since),
          until: seconds(summary.until),
          held: summary.held.map((f) => ({ asset: f.asset, value: f.value.toString() })),
          settled: summary.settled.map((s) => ({
            asset: s.asset,
            destination: s.destination,
            completed: s.completed.toString(),
            pending: s.pending.toString()
          }))
        }
      }))
  })
)
