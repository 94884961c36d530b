/**
 * Recognising the database errors the adapters turn into contract errors (unique violations, SQLSTATEs).
 *
 * @module
 */
import type { SqlError } from "effect/sql/SqlError"

/** Whether `error` is a unique violation of the named constraint or unique index. */
export const isUniqueViolation = (error: SqlError, constraint: string): boolean =>
  error.reason._tag === "UniqueViolation" && error.reason.constraint === constraint

/** The SQLSTATE the database answered `error` with, when the driver kept it. */
export const sqlState = (error: SqlError): string | undefined => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
}
