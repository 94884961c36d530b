import { Predicate, Schema } from "effect"
import { type DomainErrorCode, domainErrorCodes, type ErrorTag, tagOf } from "./ErrorCode.ts"

/**
 * An error with a code: a `Schema.TaggedError` whose tag is the PascalCase form of the code, carrying
 * only `message` (shown to API users, so it never holds secrets or internals). The domain's errors
 * are made with it, and a host's own (the HTTP API's header and credential errors) the same way.
 */
export const codedError = <Self>() => <C extends string>(code: C) =>
  Schema.TaggedError<Self>()(tagOf(code), { message: Schema.String })

/** `invalid_params` */
export class InvalidParams extends codedError<InvalidParams>()("invalid_params") {}
/** `params_validation` */
export class ParamsValidation extends codedError<ParamsValidation>()("params_validation") {}
/** `forbidden` */
export class Forbidden extends codedError<Forbidden>()("forbidden") {}
/** `sanctioned_user` */
export class SanctionedUser extends codedError<SanctionedUser>()("sanctioned_user") {}
/** `payment_not_found` */
export class PaymentNotFound extends codedError<PaymentNotFound>()("payment_not_found") {}
/** `merchant_not_found` */
export class MerchantNotFound extends codedError<MerchantNotFound>()("merchant_not_found") {}
/** `api_key_not_found` */
export class ApiKeyNotFound extends codedError<ApiKeyNotFound>()("api_key_not_found") {}
/** `partner_not_found` */
export class PartnerNotFound extends codedError<PartnerNotFound>()("partner_not_found") {}
/** `customer_not_found` */
export class CustomerNotFound extends codedError<CustomerNotFound>()("customer_not_found") {}
/** `wallet_not_found` */
export class WalletNotFound extends codedError<WalletNotFound>()("wallet_not_found") {}
/** `executor_not_found` */
export class ExecutorNotFound extends codedError<ExecutorNotFound>()("executor_not_found") {}
/** `idempotency_conflict` */
export class IdempotencyConflict extends codedError<IdempotencyConflict>()("idempotency_conflict") {}
/** `merchant_exists` */
export class MerchantExists extends codedError<MerchantExists>()("merchant_exists") {}
/** `invalid_state` */
export class InvalidState extends codedError<InvalidState>()("invalid_state") {}
/** `payment_expired` */
export class PaymentExpired extends codedError<PaymentExpired>()("payment_expired") {}
/** `quote_expired` */
export class QuoteExpired extends codedError<QuoteExpired>()("quote_expired") {}
/** `payment_not_succeeded` */
export class PaymentNotSucceeded extends codedError<PaymentNotSucceeded>()("payment_not_succeeded") {}
/** `already_refunded` */
export class AlreadyRefunded extends codedError<AlreadyRefunded>()("already_refunded") {}

/** The error classes the domain raises, one per code of `domainErrorCodes`. */
export const domainErrors = [
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

/** Any error the domain raises: its tag names one of its codes. */
export interface DomainError {
  readonly _tag: ErrorTag
  readonly message: string
}

const codesByTag: ReadonlyMap<string, DomainErrorCode> = new Map(domainErrorCodes.map((code) => [tagOf(code), code]))

/** The code of a domain error. */
export const errorCode = (error: DomainError): DomainErrorCode => codesByTag.get(error._tag)!

/** Whether a value is one of the domain's errors. */
export const isDomainError = (u: unknown): u is DomainError =>
  Predicate.hasProperty(u, "_tag") && Predicate.isString(u._tag) && codesByTag.has(u._tag)
