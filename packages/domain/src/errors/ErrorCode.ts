/**
 * The error codes the domain raises, one error class each (`DomainErrors.ts`). A code names what
 * went wrong; how a transport answers it (an HTTP status, say) is the transport's business.
 */
export const domainErrorCodes = [
  "invalid_params",
  "params_validation",
  "forbidden",
  "sanctioned_user",
  "payment_not_found",
  "merchant_not_found",
  "api_key_not_found",
  "partner_not_found",
  "customer_not_found",
  "wallet_not_found",
  "executor_not_found",
  "idempotency_conflict",
  "merchant_exists",
  "invalid_state",
  "payment_expired",
  "quote_expired",
  "payment_not_succeeded",
  "already_refunded"
] as const

/** A code the domain raises, e.g. `payment_not_found`. */
export type DomainErrorCode = (typeof domainErrorCodes)[number]

type Pascal<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>

/** The error class tag of a code: `payment_not_found` ↔ `PaymentNotFound`. */
export type ErrorTag<C extends string = DomainErrorCode> = C extends string ? Pascal<C> : never

/** The tag of the error class that carries `code` (for the domain's codes and a host's alike). */
export const tagOf = <C extends string>(code: C): ErrorTag<C> =>
  code.split("_").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("") as ErrorTag<C>
