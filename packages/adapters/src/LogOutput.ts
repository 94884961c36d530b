/**
 * How the service logs (`LOG_FORMAT`, `LOG_LEVEL`): short lines for a person on a terminal
 * (`HumanLogger`), JSON lines for a log collector when stdout is not a terminal (`JsonLogger`);
 * `LOG_FORMAT` chooses either way. Lines below `LOG_LEVEL` (default `info`) are not written.
 *
 * @module
 */
import { Effect, Layer, Logger, type LogLevel, Option, References } from "effect"
import * as Configuration from "./Configuration.ts"
import * as HumanLogger from "./HumanLogger.ts"
import * as JsonLogger from "./JsonLogger.ts"

/** The two ways of writing the log. */
export type LogFormat = "json" | "pretty"

/** The format asked for, else pretty on a terminal and JSON otherwise. */
export const chooseFormat = (asked: Option.Option<LogFormat>, isTerminal: boolean): LogFormat =>
  Option.getOrElse(asked, () => (isTerminal ? "pretty" : "json"))

/** `LOG_LEVEL`'s name (any case) as effect's level; unset, `Info`. */
export const chooseLevel = (asked: Option.Option<string>): LogLevel.LogLevel =>
  Option.match(asked, {
    onNone: () => "Info",
    onSome: (name) => (name === "none" ? "None" : `${name[0]!.toUpperCase()}${name.slice(1)}`) as LogLevel.LogLevel
  })

/** The logger and minimum level of `LOG_FORMAT` and `LOG_LEVEL`, for a process whose stdout is or is not a terminal. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const format = chooseFormat(yield* Configuration.logFormat, process.stdout.isTTY === true)
  const level = chooseLevel(yield* Configuration.logLevel)
  return Layer.merge(
    Logger.layer([format === "json" ? JsonLogger.stdout : HumanLogger.stdout]),
    Layer.succeed(References.MinimumLogLevel, level)
  )
}))
