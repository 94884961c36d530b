import { Context, type Effect } from "effect"
import type { ExportDataset, ExportRecord } from "../exports/ExportRecord.ts"
import type { Mode } from "../payment/Payment.ts"

/** One page of an export: the partner's records of `dataset` created in [`fromMillis`, `toMillis`), after `after`. */
export interface ExportPageQuery {
  readonly partnerId: string
  readonly mode: Mode
  readonly merchantId?: string | undefined
  readonly dataset: ExportDataset
  readonly fromMillis: number
  readonly toMillis: number
  /** Keyset: the last record of the previous page (created-at milliseconds and id), else `null`. */
  readonly after: { readonly createdAt: number; readonly id: string } | null
  readonly limit: number
}

/** The records the books are exported from, read a page at a time in (created-at, id) order. Failures are defects. */
export class ExportSource extends Context.Service<ExportSource, {
  readonly page: (query: ExportPageQuery) => Effect.Effect<ReadonlyArray<ExportRecord>>
}>()("@paygate/domain/ExportSource") {}
