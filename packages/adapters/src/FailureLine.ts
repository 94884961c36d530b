/**
 * The one line a person reads when a process or a command fails: the failure's own message, first
 * line only, with the first line of what caused it when the error names a cause (an embedded
 * database that could not start says why: a directory that is a file, a permission). Never a stack
 * trace.
 *
 * @module
 */
import { Cause, Predicate } from "effect"

/** The first non-blank line of `text`, trimmed. */
export const firstLine = (text: string): string => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text

/** An error's message, or the value as text. */
export const messageOf = (error: unknown): string =>
  Predicate.hasProperty(error, "message") && typeof error.message === "string" && error.message !== ""
    ? error.message
    : String(error)

/** The first failure or defect of `cause`, if any. */
export const failureOf = (cause: Cause.Cause<unknown>): unknown => {
  const reason = cause.reasons.find((r) => Cause.isFailReason(r) || Cause.isDieReason(r))
  return reason === undefined ? undefined : Cause.isFailReason(reason) ? reason.error : reason.defect
}

/** The line for `cause`; see the module documentation. */
export const failureLine = (cause: Cause.Cause<unknown>): string => {
  const error = failureOf(cause)
  if (error === undefined) return firstLine(Cause.pretty(cause))
  const line = firstLine(messageOf(error))
  const because = Predicate.hasProperty(error, "cause") && error.cause !== undefined ? firstLine(messageOf(error.cause)) : ""
  return because === "" || line.includes(because) ? line : `${line} (${because})`
}
