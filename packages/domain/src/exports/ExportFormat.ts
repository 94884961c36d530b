import { type CurrencyCode, currencyExponent } from "../money/Currency.ts"
import type { ExportRecord } from "./ExportRecord.ts"

/** An export's file format: CSV (RFC 4180, header line) or JSON lines (one object per line). */
export type ExportFormat = "csv" | "jsonl"

/** The columns of every export, in order (docs/exports.md describes each). */
export const exportColumns = [
  "type",
  "id",
  "payment_id",
  "merchant_id",
  "reference_id",
  "status",
  "fiat_amount",
  "fiat_currency",
  "token_amount",
  "token_base_units",
  "token_asset",
  "network",
  "rate",
  "tx_hash",
  "gas_paid_wei",
  "gas_asset",
  "fee",
  "created_at",
  "updated_at"
] as const

/** One exported line's values by column; `null` is an empty cell (CSV) or `null` (JSON). */
export type ExportLine<Columns extends ReadonlyArray<string> = typeof exportColumns> = { readonly [K in Columns[number]]: string | null }

/** Fractional digits of the `rate` column (rounded half up). */
export const rateDigits = 8

/** `value` / 10^`decimals` as an exact decimal string. */
export const decimal = (value: bigint, decimals: number): string => {
  const negative = value < 0n
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = decimals === 0 ? "" : `.${digits.slice(digits.length - decimals)}`
  return `${negative ? "-" : ""}${whole}${fraction}`
}

// `numerator` / `denominator` rounded half up (both positive).
const roundedDivision = (numerator: bigint, denominator: bigint): bigint => (2n * numerator + denominator) / (2n * denominator)

const iso = (millis: number): string => new Date(millis).toISOString()

/**
 * A record as exported. Fiat amounts are in major units (a payout's is its share of the payment's,
 * rounded half up to the currency's minor unit); the rate is fiat per whole token at payment time.
 */
export const exportLine = (record: ExportRecord, tokenDecimals: number | undefined): ExportLine => {
  const exponent = currencyExponent(record.currency as CurrencyCode)
  const fiatMinor = record.type === "payment" || record.tokenValue === null || record.paymentTokenValue === null || record.paymentTokenValue === 0n
    ? record.fiatValue
    : roundedDivision(record.fiatValue * record.tokenValue, record.paymentTokenValue)
  const paid = record.paymentTokenValue
  const rate = paid === null || paid === 0n || tokenDecimals === undefined
    ? null
    : decimal(roundedDivision(record.fiatValue * 10n ** BigInt(tokenDecimals + rateDigits), paid * 10n ** BigInt(exponent)), rateDigits)
  return {
    type: record.type,
    id: record.id,
    payment_id: record.paymentId,
    merchant_id: record.merchantId,
    reference_id: record.referenceId,
    status: record.status,
    fiat_amount: decimal(fiatMinor, exponent),
    fiat_currency: record.currency,
    token_amount: record.tokenValue === null || tokenDecimals === undefined ? null : decimal(record.tokenValue, tokenDecimals),
    token_base_units: record.tokenValue?.toString() ?? null,
    token_asset: record.asset,
    network: record.asset === null ? null : record.asset.slice(0, record.asset.indexOf("/")),
    rate,
    tx_hash: record.txHash,
    gas_paid_wei: record.gasPaid.toString(),
    gas_asset: record.gasAsset,
    fee: "0",
    created_at: iso(record.createdAt),
    updated_at: iso(record.updatedAt)
  }
}

/**
 * One CSV cell: quoted when it holds a comma, a quote or a line break (quotes doubled); a cell a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) is
 * prefixed with `'`. A negative number (`-12.5`) is no formula and stays a number.
 */
export const csvCell = (value: string | null): string => {
  if (value === null) return ""
  const inert = /^[=+\-@\t\r]/.test(value) && !/^-\d+(\.\d+)?$/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll("\"", "\"\"")}"` : inert
}

/** The CSV header line of `columns`. */
export const csvHeader = (columns: ReadonlyArray<string>) => `${columns.join(",")}\r\n`

/** A line of the export in `format` (its cells in the order of `columns`), with its line ending. */
export const formatLine = <Columns extends ReadonlyArray<string>>(columns: Columns, line: ExportLine<Columns>, format: ExportFormat): string =>
  format === "csv"
    ? `${columns.map((column: Columns[number]) => csvCell(line[column])).join(",")}\r\n`
    : `${JSON.stringify(line)}\n`
