/**
 * The descriptions of a held payment's capture and void operations, shared by the partner and merchant APIs.
 *
 * @module
 */
/** What the capture operations say (partner and merchant APIs). */
export const captureDescription =
  "Only for a payment created with `capture: \"manual\"` that is `authorized`, before `hold.captureBefore`. `amount` " +
  "(the payment's currency, minor units) defaults to everything not yet captured or asked for; parts add up to the " +
  "authorized token amount exactly. The capture is recorded at once (`hold.operations`, status `pending`) and the " +
  "worker sends it from the escrow to the merchant's settlement destination: `payment.captured` follows, or " +
  "`payment.succeeded` for the part that empties the escrow. Otherwise `invalid_state` (not authorized, past the " +
  "deadline, being voided), or `params_validation` (more than is left, another currency)."

/** What the void operations say. */
export const voidDescription =
  "Only for an `authorized` held payment, before its capture deadline: everything not captured or asked for goes back " +
  "to the buyer. The worker sends it; `payment.voided` follows (or `payment.succeeded` when some was captured)."
