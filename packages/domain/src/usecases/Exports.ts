import { Context, Effect, Layer, Option, Stream } from "effect"
import { InvalidParams } from "../errors/DomainErrors.ts"
import { balanceColumns, balanceLine } from "../exports/BalanceStatement.ts"
import { csvHeader, exportColumns, type ExportFormat, exportLine, formatLine } from "../exports/ExportFormat.ts"
import { exportDatasets } from "../exports/ExportRecord.ts"
import { AssetCatalog } from "../ports/AssetCatalog.ts"
import { type ExportPageQuery, ExportSource } from "../ports/ExportSource.ts"
import { LedgerBalances, type StatementPageQuery } from "../ports/LedgerBalances.ts"
import type { PartnerAccess } from "./Merchants.ts"

/** An export request as the API receives it (query strings). */
export interface ExportInput {
  readonly dataset: string
  readonly format?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly merchantId?: string | undefined
}

/** A validated export: what to stream and how to name it. */
export interface ExportFile {
  readonly format: ExportFormat
  readonly fileName: string
  readonly lines: Stream.Stream<string>
}

/** What an export lists: records (payments, settlements, refunds), or the merchants' balances from the ledger. */
const datasets = [...exportDatasets, "balances"] as const

/** Records read per page: memory holds one page, whatever the period's size. */
export const exportPageSize = 1_000

// An ISO 8601 time with a UTC designator (`Z` or `+00:00`), or a date (midnight UTC).
const utcTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]00:?00))?$/

const parseTime = (name: string, text: string | undefined) => {
  const millis = text !== undefined && utcTime.test(text) ? Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text) : Number.NaN
  // A day the month does not have (2026-02-31) would roll over into the next month: refused instead.
  return Number.isFinite(millis) && new Date(millis).toISOString().slice(0, 10) === text!.slice(0, 10)
    ? Effect.succeed(millis)
    : Effect.fail(new InvalidParams({ message: `${name} must be a UTC time in ISO 8601 (e.g. 2026-01-31T00:00:00Z or 2026-01-31).` }))
}

/**
 * Exports for the books: the partner's payments, settlements or refunds created in a period
 * [`from`, `to`), or its merchants' balances over it (the ledger's statements), of one merchant or
 * all, as CSV or JSON lines, read from the store a page at a time (keyset on created-at and id, or on
 * merchant and token) so that a period of any size streams in flat memory.
 */
export class Exports extends Context.Service<Exports, {
  /** Validates the request (`InvalidParams` for a bad one) and answers the file to stream. */
  readonly open: (access: PartnerAccess, input: ExportInput) => Effect.Effect<ExportFile, InvalidParams>
}>()("@paygate/domain/Exports") {
  /** The use case over the ports in context. */
  static readonly layer = Layer.effect(
    Exports,
    Effect.gen(function*() {
      const source = yield* ExportSource
      const catalog = yield* AssetCatalog
      const ledger = yield* LedgerBalances

      // A period of any size in flat memory: `read` answers the page after `after` (null: the first).
      const paged = <A, Key>(read: (after: Key | null) => Effect.Effect<ReadonlyArray<A>>, keyOf: (last: A) => Key) =>
        Stream.paginate(null as Key | null, (after) =>
          Effect.map(read(after), (rows) => {
            const last = rows.at(-1)
            return [rows, rows.length < exportPageSize || last === undefined ? Option.none() : Option.some(keyOf(last))] as const
          }))
      const decimalsOf = (asset: string | null) => (asset === null ? undefined : catalog.asset(asset)?.decimals)

      const open = Effect.fn("Exports.open")(function*(access: PartnerAccess, input: ExportInput) {
        const dataset = datasets.find((d) => d === input.dataset)
        if (dataset === undefined) return yield* new InvalidParams({ message: `The export must be one of ${datasets.join(", ")}.` })
        const format = input.format ?? "csv"
        if (format !== "csv" && format !== "jsonl") return yield* new InvalidParams({ message: "format must be csv or jsonl." })
        const fromMillis = yield* parseTime("from", input.from)
        const toMillis = yield* parseTime("to", input.to)
        if (toMillis <= fromMillis) return yield* new InvalidParams({ message: "to must be later than from." })
        const query = { partnerId: access.partnerId, mode: access.mode, merchantId: input.merchantId === "" ? undefined : input.merchantId, fromMillis, toMillis }
        const [header, body] = dataset === "balances"
          ? [
            csvHeader(balanceColumns),
            paged((after: StatementPageQuery["after"]) => ledger.statements({ ...query, after, limit: exportPageSize }), (last) => ({ merchantId: last.merchantId, asset: last.asset })).pipe(
              Stream.map((statement) => formatLine(balanceColumns, balanceLine(statement, decimalsOf(statement.asset), query), format))
            )
          ] as const
          : [
            csvHeader(exportColumns),
            paged((after: ExportPageQuery["after"]) => source.page({ ...query, dataset, after, limit: exportPageSize }), (last) => ({ createdAt: last.createdAt, id: last.id })).pipe(
              Stream.map((record) => formatLine(exportColumns, exportLine(record, decimalsOf(record.asset)), format))
            )
          ] as const
        const stamp = (millis: number) => new Date(millis).toISOString().slice(0, 10)
        return {
          format,
          fileName: `${dataset}-${access.mode}-${stamp(fromMillis)}-${stamp(toMillis)}.${format}`,
          lines: format === "csv" ? Stream.concat(Stream.make(header), body) : body
        } satisfies ExportFile
      })

      return Exports.of({ open })
    })
  )
}
