/**
 * Recognising the unique violations the adapters turn into contract errors.
 *
 * @module
 */
import type { SqlError } from "effect/sql/SqlError"

/** Whether `error` is a unique violation of the named constraint or unique index. */
export const isUniqueViolation = (error: SqlError, constraint: string): boolean =>
  error.reason._tag === "UniqueViolation" && error.reason.constraint === constraint
