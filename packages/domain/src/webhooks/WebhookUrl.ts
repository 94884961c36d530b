/**
 * Rules of a webhook URL at registration (API rules §6): absolute, HTTPS (plain HTTP only in
 * sandbox or when allowed by configuration), no credentials, and not naming a loopback, private
 * or other non-public address unless allowed by configuration. Host names are resolved too
 * (see `Webhooks.register`); delivery checks again on the address actually connected to.
 *
 * @module
 */
import { Result } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { classifyAddress, isLocalHostName } from "./AddressClass.ts"

/** Longest URL accepted. */
export const maxUrlLength = 2048

/** What the rules allow for one registration. */
export interface UrlPolicy {
  readonly allowHttp: boolean
  readonly allowPrivate: boolean
  /** Appended to the refusal of a private address (e.g. how to receive events locally). */
  readonly privateHint?: string | undefined
}

/** A URL that passed the syntactic rules; `hostName` is set when DNS decides where it points. */
export interface CheckedUrl {
  readonly url: URL
  readonly hostName: string | undefined
}

const invalid = (message: string) => Result.fail(new ParamsValidation({ message }))

/** The syntactic and address-literal rules; host names are left to the resolver. */
export const checkWebhookUrl = (text: string, policy: UrlPolicy): Result.Result<CheckedUrl, ParamsValidation> => {
  if (text.length === 0 || text.length > maxUrlLength) return invalid(`url must be 1 to ${maxUrlLength} characters.`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return invalid("url must be an absolute URL.")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return invalid("url must be an HTTPS URL.")
  if (url.protocol === "http:" && !policy.allowHttp) return invalid("url must use HTTPS.")
  if (url.username !== "" || url.password !== "") return invalid("url must not contain credentials.")
  if (url.hostname === "") return invalid("url must name a host.")
  const literal = classifyAddress(url.hostname)
  if (literal !== undefined) {
    if (literal !== "public" && !policy.allowPrivate) return invalid(`url must not point to a ${literal} address.${policy.privateHint ?? ""}`)
    return Result.succeed({ url, hostName: undefined })
  }
  if (isLocalHostName(url.hostname) && !policy.allowPrivate) return invalid(`url must not point to a loopback address.${policy.privateHint ?? ""}`)
  return Result.succeed({ url, hostName: url.hostname })
}
