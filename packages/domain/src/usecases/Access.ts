import type { MerchantId, PartnerId } from "../ids/Ids.ts"
import type { Mode } from "../payment/Payment.ts"

/**
 * Who is asking. Payments outside the caller's reach are reported exactly as missing ones
 * (API rules §1): a sandbox credential never sees live payments, a partner never sees another's.
 */
export interface Access {
  /** Unset only for the service's own jobs (the worker), which act on every payment. */
  readonly mode?: Mode | undefined
  /** Set for partner and merchant API callers; gateway callers hold the payment id as a capability. */
  readonly partnerId?: PartnerId | undefined
  /** Set for merchant API callers. */
  readonly merchantId?: MerchantId | undefined
}

/** Whether a payment is within reach of `access`. */
export const canSee = (
  access: Access,
  payment: { readonly mode: Mode; readonly partnerId: PartnerId; readonly merchantId: MerchantId }
): boolean =>
  (access.mode === undefined || payment.mode === access.mode) &&
  (access.partnerId === undefined || access.partnerId === payment.partnerId) &&
  (access.merchantId === undefined || access.merchantId === payment.merchantId)

/** The service's own jobs: they see every payment of every partner and mode. */
export const systemAccess: Access = {}
