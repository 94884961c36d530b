/**
 * The contract errors only the HTTP API raises (API rules §1, §2, §3): malformed headers, a
 * `Svc-Version` it cannot serve, missing or invalid credentials, rate limiting and the internal
 * error. Their codes and statuses are in `ErrorCodes.ts`; the classes live here because nothing below
 * the API can raise them.
 *
 * @module
 */
import { codedError } from "@paygate/domain"

/** `header_not_ascii` */
export class HeaderNotAscii extends codedError<HeaderNotAscii>()("header_not_ascii") {}
/** `invalid_api_version` */
export class InvalidApiVersion extends codedError<InvalidApiVersion>()("invalid_api_version") {}
/** `unknown_api_version` */
export class UnknownApiVersion extends codedError<UnknownApiVersion>()("unknown_api_version") {}
/** `api_version_downgrade` */
export class ApiVersionDowngrade extends codedError<ApiVersionDowngrade>()("api_version_downgrade") {}
/** `conflicting_auth_headers` */
export class ConflictingAuthHeaders extends codedError<ConflictingAuthHeaders>()("conflicting_auth_headers") {}
/** `missing_merchant_id` */
export class MissingMerchantId extends codedError<MissingMerchantId>()("missing_merchant_id") {}
/** `missing_api_key` */
export class MissingApiKey extends codedError<MissingApiKey>()("missing_api_key") {}
/** `missing_merchant_api_key` */
export class MissingMerchantApiKey extends codedError<MissingMerchantApiKey>()("missing_merchant_api_key") {}
/** `missing_auth_headers` */
export class MissingAuthHeaders extends codedError<MissingAuthHeaders>()("missing_auth_headers") {}
/** `missing_app_id` */
export class MissingAppId extends codedError<MissingAppId>()("missing_app_id") {}
/** `missing_client_id` */
export class MissingClientId extends codedError<MissingClientId>()("missing_client_id") {}
/** `invalid_api_key` */
export class InvalidApiKey extends codedError<InvalidApiKey>()("invalid_api_key") {}
/** `invalid_app_id` */
export class InvalidAppId extends codedError<InvalidAppId>()("invalid_app_id") {}
/** `unauthorized` */
export class Unauthorized extends codedError<Unauthorized>()("unauthorized") {}
/** `not_sandbox_api_key` */
export class NotSandboxApiKey extends codedError<NotSandboxApiKey>()("not_sandbox_api_key") {}
/** `rate_limited` */
export class RateLimited extends codedError<RateLimited>()("rate_limited") {}
/** `internal_error` */
export class InternalError extends codedError<InternalError>()("internal_error") {}

/** Every HTTP-only contract error class, one per code. */
export const httpErrors = [
  HeaderNotAscii,
  InvalidApiVersion,
  UnknownApiVersion,
  ApiVersionDowngrade,
  ConflictingAuthHeaders,
  MissingMerchantId,
  MissingApiKey,
  MissingMerchantApiKey,
  MissingAuthHeaders,
  MissingAppId,
  MissingClientId,
  InvalidApiKey,
  InvalidAppId,
  Unauthorized,
  NotSandboxApiKey,
  RateLimited,
  InternalError
] as const
