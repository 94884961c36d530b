import { Schema } from "effect"

/**
 * Every error code of the service and its HTTP status (API rules §1).
 * This table is the only place that maps a code to a status.
 */
export const errorStatuses = {
  invalid_params: 400,
  params_validation: 400,
  header_not_ascii: 400,
  conflicting_auth_headers: 400,
  missing_merchant_id: 400,
  invalid_api_version: 400,
  unknown_api_version: 400,
  api_version_downgrade: 400,
  missing_api_key: 401,
  missing_merchant_api_key: 401,
  missing_auth_headers: 401,
  missing_app_id: 401,
  missing_client_id: 401,
  invalid_api_key: 401,
  invalid_app_id: 401,
  unauthorized: 401,
  forbidden: 403,
  not_sandbox_api_key: 403,
  sanctioned_user: 403,
  payment_not_found: 404,
  merchant_not_found: 404,
  api_key_not_found: 404,
  partner_not_found: 404,
  customer_not_found: 404,
  wallet_not_found: 404,
  executor_not_found: 404,
  idempotency_conflict: 409,
  merchant_exists: 409,
  invalid_state: 409,
  payment_expired: 409,
  quote_expired: 409,
  payment_not_succeeded: 409,
  already_refunded: 409,
  rate_limited: 429,
  internal_error: 500
} as const

/** A contract error code, e.g. `payment_not_found`. */
export type ErrorCode = keyof typeof errorStatuses

/** All error codes, in the order of the contract's status table. */
export const errorCodes = Object.keys(errorStatuses) as ReadonlyArray<ErrorCode>

/** Schema of an error code on the wire. */
export const ErrorCode = Schema.Literals(errorCodes as [ErrorCode, ...Array<ErrorCode>])

/** The HTTP status of an error code's response. */
export const statusOf = (code: ErrorCode): number => errorStatuses[code]

type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>

/** The error class tag for a code: `payment_not_found` ↔ `PaymentNotFound`. */
export type ErrorTag<C extends ErrorCode = ErrorCode> = C extends ErrorCode ? Pascal<C> : never

/** The tag of the error class that carries `code`. */
export const tagOf = <C extends ErrorCode>(code: C): ErrorTag<C> =>
  code.split("_").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("") as ErrorTag<C>

const codesByTag: ReadonlyMap<string, ErrorCode> = new Map(errorCodes.map((code) => [tagOf(code), code]))

/** The code of an error class tag, if the tag is one of the contract's. */
export const codeOfTag = (tag: string): ErrorCode | undefined => codesByTag.get(tag)
