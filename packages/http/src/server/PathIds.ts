import { ApiKeyNotFound, MerchantNotFound, PartnerNotFound, PaymentNotFound } from "@paygate/domain"
import { type ContractError } from "../api/ErrorCodes.ts"

/**
 * Path ids that cannot be ids (API rules §8: an unknown or malformed id in a path is the
 * resource's 404, never a 500 and never "no such operation").
 *
 * @module
 */

/** Longer than this, a path segment is no id of this service (API rules §8 ids are a prefix and 1–64 characters). */
export const maxPathIdLength = 4096

// Stands for a segment that cannot be an id: NUL, which `WellFormedText` rejects in every path id.
const unreadable = "%00"

const readable = (segment: string): boolean => {
  // Without an escape, decoding changes nothing (checked on every request's path: skip the work).
  if (!segment.includes("%")) return segment.length <= maxPathIdLength
  try {
    return decodeURIComponent(segment).length <= maxPathIdLength
  } catch {
    return false
  }
}

/**
 * `url` with each path segment the router could not take (invalid percent-encoding or UTF-8, such
 * as `%FF` or `%C3%28`, or longer than {@link maxPathIdLength}) replaced by an encoded NUL, or
 * `undefined` when every segment is fine. The router gives up on the whole path for such a segment;
 * as NUL it still reaches its route, and so the credential and version checks that come first
 * (API rules §1), and then the route's not-found code.
 */
export const routableUrl = (url: string): string | undefined => {
  const end = url.search(/[?;#]/)
  const path = end === -1 ? url : url.slice(0, end)
  const segments = path.split("/")
  if (segments.every(readable)) return undefined
  return segments.map((segment) => (readable(segment) ? segment : unreadable)).join("/") + (end === -1 ? "" : url.slice(end))
}

/**
 * The not-found error of the resource a route's path ids name, by route family: merchants and their
 * settlements respond with `merchant_not_found`, webhook endpoints their owner's `partner_not_found`
 * (api/WebhooksApi.ts), API keys and team members (the partner's other credential) `api_key_not_found`,
 * and every other path id names a payment (an event id belongs to its payment, a payment link is a
 * way to pay). `message` replaces the resource's own.
 */
export const pathIdNotFound = (routePath: string, message?: string): ContractError => {
  if (routePath.startsWith("/v1/merchants/")) return new MerchantNotFound({ message: message ?? "No merchant with this id." })
  if (routePath.startsWith("/v1/webhooks/")) return new PartnerNotFound({ message: message ?? "No webhook endpoint with this id." })
  if (routePath.startsWith("/v1/api-keys/")) return new ApiKeyNotFound({ message: message ?? "No API key with this id." })
  if (routePath.startsWith("/v1/team/members/")) return new ApiKeyNotFound({ message: message ?? "No team member with this id." })
  if (routePath.startsWith("/v1/links/")) return new PaymentNotFound({ message: message ?? "No payment link with this id." })
  if (routePath.startsWith("/v1/refunds/")) return new PaymentNotFound({ message: message ?? "No refund with this id." })
  return new PaymentNotFound({ message: message ?? (routePath.startsWith("/v1/events/") ? "No event with this id." : "No payment with this id.") })
}
