/**
 * The log as a person reads it on a terminal: one short line per entry, the local time, the level
 * when it is not plain information, the message, and its fields as `key=value`
 * (`12:04:31 WARN  SANCTIONS_FILE is not set: …`). The first line of a failure's cause follows
 * the message; stacks, fiber ids and annotations stay in the JSON log (`LOG_FORMAT=json`).
 *
 * @module
 */
import { Cause, Formatter, Logger, Predicate } from "effect"
import type { LogLevel } from "effect"

const two = (n: number) => String(n).padStart(2, "0")
const clock = (date: Date) => `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`

// A field's value as it reads in one line: strings bare unless they hold spaces, the rest as JSON.
const value = (v: unknown): string => {
  if (typeof v === "string") return v === "" || /\s|"/.test(v) ? JSON.stringify(v) : v
  if (typeof v === "bigint") return String(v)
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    return Formatter.formatJson(v)
  }
}

const part = (item: unknown): string => {
  if (typeof item === "string") return item
  if (Predicate.isObject(item) && !Array.isArray(item) && !(item instanceof Error)) {
    return Object.entries(item).map(([k, v]) => `${k}=${value(v)}`).join(" ")
  }
  if (item instanceof Error) return item.message
  return value(item)
}

const levelLabel = (level: LogLevel.LogLevel) => (level === "Info" ? "" : `${level.toUpperCase().padEnd(5)} `)

/** One entry as one line (no newline). */
export const formatLine = (message: unknown, level: LogLevel.LogLevel, date: Date, cause: Cause.Cause<unknown>): string => {
  const parts = (Array.isArray(message) ? message : [message]).map(part).filter((text) => text !== "")
  if (cause.reasons.length > 0) {
    const first = Cause.pretty(cause).split("\n").find((line) => line.trim() !== "")?.trim()
    if (first !== undefined) parts.push(`(${first})`)
  }
  return `${clock(date)} ${levelLabel(level)}${parts.join(" ")}`
}

/** A logger writing {@link formatLine} lines through `write`. */
export const make = (write: (line: string) => void) =>
  Logger.make((options) => write(formatLine(options.message, options.logLevel, options.date, options.cause)))

/** The human logger on stdout. */
export const stdout = make((line) => process.stdout.write(`${line}\n`))
