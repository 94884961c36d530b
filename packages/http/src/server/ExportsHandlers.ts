import * as HandlerGroup from "./HandlerGroup.ts"
import { type ExportInput, Exports } from "@paygate/domain"
import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { PaygateApi } from "../api/Api.ts"
import { partnerAccess } from "./PaymentsHandlers.ts"

const contentTypes = { csv: "text/csv; charset=utf-8", jsonl: "application/x-ndjson; charset=utf-8" } as const

/** Partner API export handler: `Exports.open` validates (bad values are `invalid_params`), then the file streams as an attachment. */
export const ExportsHandlers = HandlerGroup.group(
  PaygateApi,
  "exports",
  Effect.fn(function*(handlers) {
    const exports = yield* Exports
    const download = (dataset: string, query: Omit<ExportInput, "dataset">) =>
      Effect.gen(function*() {
        const file = yield* exports.open(yield* partnerAccess, { dataset, ...query })
        const encoder = new TextEncoder()
        return HttpServerResponse.stream(Stream.map(file.lines, (line) => encoder.encode(line)), {
          contentType: contentTypes[file.format],
          headers: { "content-disposition": `attachment; filename="${file.fileName}"`, "cache-control": "no-store" }
        })
      })
    return handlers
      .handle("payments", ({ query }) => download("payments", query))
      .handle("settlements", ({ query }) => download("settlements", query))
      .handle("refunds", ({ query }) => download("refunds", query))
      .handle("balances", ({ query }) => download("balances", query))
  })
)
