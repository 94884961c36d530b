import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { wire } from "./ErrorWire.ts"
import { PartnerAuth } from "./Security.ts"
import { InvalidParams } from "@paygate/domain"

const text = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

const recordsOf = (dataset: string) =>
  `Every ${dataset.slice(0, -1)} record of the partner (key's mode) created in [from, to), oldest first, streamed as an ` +
  "attachment (Content-Disposition): fiat and token amounts, the rate at payment time, network, transaction hash, gas " +
  "the service paid, fees and times in UTC. The columns are described in docs/exports.md."

const download = <Name extends string>(name: Name, dataset: string, description = recordsOf(dataset)) =>
  HttpApiEndpoint.get(name, `/v1/exports/${dataset}`, {
    query: {
      format: text("csv (default) or jsonl."),
      from: text("Start of the period, included: ISO 8601 in UTC (2026-01-01 or 2026-01-01T00:00:00Z)."),
      to: text("End of the period, excluded: ISO 8601 in UTC."),
      merchantId: text("Only this merchant's records; all the partner's without it.")
    },
    success: HttpApiSchema.StreamUint8Array({ contentType: ["text/csv", "application/x-ndjson"] }),
    error: wire(InvalidParams, "InvalidParams")
  }).annotate(OpenApi.Summary, `The ${dataset} of a period as CSV or JSON lines`)
    .annotate(OpenApi.Description, description)

/** Partner API: exports for the books (docs/exports.md), streamed as a file. */
export class ExportsApi extends HttpApiGroup.make("exports")
  .add(download("payments", "payments"), download("settlements", "settlements"), download("refunds", "refunds"))
  .add(download(
    "balances",
    "balances",
    "One row per merchant of the partner (key's mode) and token, read from the ledger: the balance owed before from, the " +
      "period's movements by kind (received, reversed, settled, refunded) and the balance before to, in whole tokens and " +
      "base units, streamed as an attachment (Content-Disposition). The columns are described in docs/exports.md."
  ))
  .middleware(PartnerAuth)
  .annotate(OpenApi.Title, "Exports")
{}
