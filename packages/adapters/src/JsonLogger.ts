/**
 * The processes' log: one JSON object per line on stdout, in the shape of effect's
 * `Logger.consoleJson` (`message`, `level`, `timestamp`, `cause`, `annotations`, `spans`,
 * `fiberId`), written for a service that logs every request.
 *
 * `consoleJson` formats each entry with effect's cycle-safe formatter and writes it with one
 * synchronous `console.log`; under load those two were about a tenth of a request's CPU. Here an
 * entry is serialised with `JSON.stringify` (the safe formatter only when that throws: a bigint,
 * a cycle), and the lines produced in one turn of the event loop are written together, right after
 * it (`setImmediate`), so a line still reaches stdout within the same few milliseconds. Lines still
 * buffered when the process exits are written synchronously on `exit`.
 *
 * @module
 */
import { Formatter, Logger } from "effect"

/** Serialises a log entry; falls back to effect's safe formatter for what JSON cannot hold. */
export const toJsonLine = (entry: unknown): string => {
  try {
    return JSON.stringify(entry)
  } catch {
    return Formatter.formatJson(entry)
  }
}

/** Collects lines and hands them to `write` in one chunk per event-loop turn. */
export const lineBatcher = (write: (chunk: string) => void) => {
  let pending: Array<string> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const lines = pending
    pending = []
    write(lines.join("\n") + "\n")
  }
  return {
    push: (line: string) => {
      pending.push(line)
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    flush
  }
}

const stdoutBatcher = lineBatcher((chunk) => process.stdout.write(chunk))
let flushesOnExit = false
const pushToStdout = (line: string) => {
  if (!flushesOnExit) {
    flushesOnExit = true
    process.on("exit", stdoutBatcher.flush)
  }
  stdoutBatcher.push(line)
}

/** A logger writing `Logger.formatStructured` entries as JSON lines through `push`. */
export const make = (push: (line: string) => void) =>
  Logger.make((options) => push(toJsonLine(Logger.formatStructured.log(options))))

/** The JSON-lines logger on stdout. */
export const stdout = make(pushToStdout)

/** Replaces the default loggers with {@link stdout}. */
export const layer = Logger.layer([stdout])
