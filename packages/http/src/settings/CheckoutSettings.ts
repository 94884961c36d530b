import { Context } from "effect"

/** Public addresses the API hands out (service-spec "Other addresses"); the host decides them. */
export class CheckoutSettings extends Context.Service<CheckoutSettings, {
  /** `{checkout_url}`: `gatewayUrl` = `{checkout_url}/{paymentId}`. */
  readonly checkoutUrl: string
  /** `{data_collection_url}`: options link to `{data_collection_url}?paymentId=…&account=…`. */
  readonly dataCollectionUrl: string
  /** `{x402_url}`: a payment's x402 address is `{x402_url}/{paymentId}` (on `PUBLIC_URL`). */
  readonly x402Url: string
  /** Where payment links' pages are: a link's page is `{link_url}/{linkId}` (on `PUBLIC_URL`). */
  readonly linkUrl: string
  /** Where plans' checkouts are: a plan's is `{subscribe_url}/{planId}`, a payer's manage page `{subscribe_url}/manage/{subscriptionId}#{token}`. */
  readonly subscribeUrl: string
  /** Where refund claim pages are: a claim link is `{refund_claim_url}/{token}` (on `PUBLIC_URL`). */
  readonly refundClaimUrl: string
}>()("@paygate/http/CheckoutSettings") {}
