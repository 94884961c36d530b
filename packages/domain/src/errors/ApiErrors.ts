import { Predicate, Schema } from "effect"
import { type ErrorCode, type ErrorTag, codeOfTag, statusOf, tagOf } from "./ErrorCode.ts"

/**
 * Base of every contract error: a `Schema.TaggedError` whose tag is the PascalCase form of its
 * code and whose `httpApiStatus` comes from the code's row in {@link statusOf}'s table.
 * Only `message` is carried: it is shown to API users, so it never holds secrets or internals.
 * The codes are the domain's; a host defines with it the errors of its own transport (the HTTP
 * API's header, version, authentication and rate-limit errors live in `@paygate/http`).
 */
export const contractError = <Self>() => <C extends ErrorCode>(code: C) =>
  Schema.TaggedError<Self>()(tagOf(code), { message: Schema.String }, { httpApiStatus: statusOf(code) })

const ApiError = contractError

/** `invalid_params` */
export class InvalidParams extends ApiError<InvalidParams>()("invalid_params") {}
/** `params_validation` */
export class ParamsValidation extends ApiError<ParamsValidation>()("params_validation") {}
/** `forbidden` */
export class Forbidden extends ApiError<Forbidden>()("forbidden") {}
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

/** The contract error classes the domain raises, one per code (the HTTP-only codes' are in `@paygate/http`). */
export const apiErrors = [
  InvalidParams,
  ParamsValidation,
  Forbidden,
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
  AlreadyRefunded
] as const

/** Any contract error, the domain's or a host's: its tag names one of the contract codes. */
export interface ApiError {
  readonly _tag: ErrorTag
  readonly message: string
}

/** The contract code of an error. */
export const errorCode = (error: ApiError): ErrorCode => codeOfTag(error._tag) as ErrorCode

/** Whether a value is one of the contract errors. */
export const isApiError = (u: unknown): u is ApiError =>
  Predicate.hasProperty(u, "_tag") && Predicate.isString(u._tag) && codeOfTag(u._tag) !== undefined
