/**
 * Every error code of the API and its HTTP status: the domain's codes and the ones
 * only the HTTP API raises (headers, versions, credentials, rate limit, internal error). This table
 * is the only place that maps a code to a status; the body is always {@link ErrorResponse}.
 *
 * @module
 */
import { type DomainErrorCode, type ErrorTag, tagOf } from "@paygate/domain"
import { Predicate, Schema } from "effect"

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
} as const satisfies Record<DomainErrorCode, number> & Record<string, number>

/** An error code on the wire, e.g. `payment_not_found`. */
export type ErrorCode = keyof typeof errorStatuses

/** All error codes, in the order of the contract's status table. */
export const errorCodes = Object.keys(errorStatuses) as ReadonlyArray<ErrorCode>

/** Schema of an error code on the wire. */
export const ErrorCode = Schema.Literals(errorCodes as [ErrorCode, ...Array<ErrorCode>])

/** The HTTP status of an error code's response. */
export const statusOf = (code: ErrorCode): number => errorStatuses[code]

/** The body of every error response: `{"code", "message"}`. */
export class ErrorResponse extends Schema.Class<ErrorResponse>("paygate/ErrorResponse")({
  code: ErrorCode,
  message: Schema.String
}) {}

/** Any error the API answers with a code: the domain's or the HTTP API's own. */
export interface ContractError {
  readonly _tag: ErrorTag<ErrorCode>
  readonly message: string
}

const codesByTag: ReadonlyMap<string, ErrorCode> = new Map(errorCodes.map((code) => [tagOf(code), code]))

/** The code of an error class tag, if the tag is one of the API's. */
export const codeOfTag = (tag: string): ErrorCode | undefined => codesByTag.get(tag)

/** The code of a contract error. */
export const contractErrorCode = (error: ContractError): ErrorCode => codesByTag.get(error._tag)!

/** Whether a value is an error the API answers with a code. */
export const isContractError = (u: unknown): u is ContractError =>
  Predicate.hasProperty(u, "_tag") && Predicate.isString(u._tag) && codesByTag.has(u._tag)
