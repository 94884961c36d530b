import { Predicate, Schema } from "effect"
import { type ErrorCode, codeOfTag, statusOf, tagOf } from "./ErrorCode.ts"

/**
 * Base of every contract error: a `Schema.TaggedError` whose tag is the PascalCase form of its
 * code and whose `httpApiStatus` comes from the code's row in {@link statusOf}'s table.
 * Only `message` is carried: it is shown to API users, so it never holds secrets or internals.
 */
const ApiError = <Self>() => <C extends ErrorCode>(code: C) =>
  Schema.TaggedError<Self>()(tagOf(code), { message: Schema.String }, { httpApiStatus: statusOf(code) })

/** `invalid_params` */
export class InvalidParams extends ApiError<InvalidParams>()("invalid_params") {}
/** `params_validation` */
export class ParamsValidation extends ApiError<ParamsValidation>()("params_validation") {}
/** `header_not_ascii` */
export class HeaderNotAscii extends ApiError<HeaderNotAscii>()("header_not_ascii") {}
/** `conflicting_auth_headers` */
export class ConflictingAuthHeaders extends ApiError<ConflictingAuthHeaders>()("conflicting_auth_headers") {}
/** `missing_merchant_id` */
export class MissingMerchantId extends ApiError<MissingMerchantId>()("missing_merchant_id") {}
/** `invalid_api_version` */
export class InvalidApiVersion extends ApiError<InvalidApiVersion>()("invalid_api_version") {}
/** `unknown_api_version` */
export class UnknownApiVersion extends ApiError<UnknownApiVersion>()("unknown_api_version") {}
/** `api_version_downgrade` */
export class ApiVersionDowngrade extends ApiError<ApiVersionDowngrade>()("api_version_downgrade") {}
/** `missing_api_key` */
export class MissingApiKey extends ApiError<MissingApiKey>()("missing_api_key") {}
/** `missing_merchant_api_key` */
export class MissingMerchantApiKey extends ApiError<MissingMerchantApiKey>()("missing_merchant_api_key") {}
/** `missing_auth_headers` */
export class MissingAuthHeaders extends ApiError<MissingAuthHeaders>()("missing_auth_headers") {}
/** `missing_app_id` */
export class MissingAppId extends ApiError<MissingAppId>()("missing_app_id") {}
/** `missing_client_id` */
export class MissingClientId extends ApiError<MissingClientId>()("missing_client_id") {}
/** `invalid_api_key` */
export class InvalidApiKey extends ApiError<InvalidApiKey>()("invalid_api_key") {}
/** `invalid_app_id` */
export class InvalidAppId extends ApiError<InvalidAppId>()("invalid_app_id") {}
/** `unauthorized` */
export class Unauthorized extends ApiError<Unauthorized>()("unauthorized") {}
/** `forbidden` */
export class Forbidden extends ApiError<Forbidden>()("forbidden") {}
/** `not_sandbox_api_key` */
export class NotSandboxApiKey extends ApiError<NotSandboxApiKey>()("not_sandbox_api_key") {}
/** `sanctioned_user` */
export class SanctionedUser extends ApiError<SanctionedUser>()("sanctioned_user") {}
/** `payment_not_found` */
export class PaymentNotFound extends ApiError<PaymentNotFound>()("payment_not_found") {}
/** `merchant_not_found` */
export class MerchantNotFound extends ApiError<MerchantNotFound>()("merchant_not_found") {}
/** `api_key_not_found` */
export class ApiKeyNotFound extends ApiError<ApiKeyNotFound>()("api_key_not_found") {}
/** `partner_not_found` */
export class PartnerNotFound extends ApiError<PartnerNotFound>()("partner_not_found") {}
/** `customer_not_found` */
export class CustomerNotFound extends ApiError<CustomerNotFound>()("customer_not_found") {}
/** `wallet_not_found` */
export class WalletNotFound extends ApiError<WalletNotFound>()("wallet_not_found") {}
/** `executor_not_found` */
export class ExecutorNotFound extends ApiError<ExecutorNotFound>()("executor_not_found") {}
/** `idempotency_conflict` */
export class IdempotencyConflict extends ApiError<IdempotencyConflict>()("idempotency_conflict") {}
/** `merchant_exists` */
export class MerchantExists extends ApiError<MerchantExists>()("merchant_exists") {}
/** `invalid_state` */
export class InvalidState extends ApiError<InvalidState>()("invalid_state") {}
/** `payment_expired` */
export class PaymentExpired extends ApiError<PaymentExpired>()("payment_expired") {}
/** `quote_expired` */
export class QuoteExpired extends ApiError<QuoteExpired>()("quote_expired") {}
/** `payment_not_succeeded` */
export class PaymentNotSucceeded extends ApiError<PaymentNotSucceeded>()("payment_not_succeeded") {}
/** `already_refunded` */
export class AlreadyRefunded extends ApiError<AlreadyRefunded>()("already_refunded") {}
/** `rate_limited` */
export class RateLimited extends ApiError<RateLimited>()("rate_limited") {}
/** `internal_error` */
export class InternalError extends ApiError<InternalError>()("internal_error") {}

/** Every contract error class, one per code. */
export const apiErrors = [
  InvalidParams,
  ParamsValidation,
  HeaderNotAscii,
  ConflictingAuthHeaders,
  MissingMerchantId,
  InvalidApiVersion,
  UnknownApiVersion,
  ApiVersionDowngrade,
  MissingApiKey,
  MissingMerchantApiKey,
  MissingAuthHeaders,
  MissingAppId,
  MissingClientId,
  InvalidApiKey,
  InvalidAppId,
  Unauthorized,
  Forbidden,
  NotSandboxApiKey,
  SanctionedUser,
  PaymentNotFound,
  MerchantNotFound,
  ApiKeyNotFound,
  PartnerNotFound,
  CustomerNotFound,
  WalletNotFound,
  ExecutorNotFound,
  IdempotencyConflict,
  MerchantExists,
  InvalidState,
  PaymentExpired,
  QuoteExpired,
  PaymentNotSucceeded,
  AlreadyRefunded,
  RateLimited,
  InternalError
] as const

/** Any contract error. */
export type ApiError = InstanceType<(typeof apiErrors)[number]>

/** The contract code of an error raised by this package. */
export const errorCode = (error: ApiError): ErrorCode => codeOfTag(error._tag) as ErrorCode

/** Whether a value is one of the contract errors. */
export const isApiError = (u: unknown): u is ApiError =>
  Predicate.hasProperty(u, "_tag") && Predicate.isString(u._tag) && codeOfTag(u._tag) !== undefined
