import { type ApiVersion, compareVersions, isPreviewVersion, publishedVersions } from "@paygate/domain"
import { Effect } from "effect"
import { ApiVersionDowngrade, InvalidApiVersion, UnknownApiVersion } from "../api/HttpErrors.ts"

const isCalendarDate = (date: string) => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
  return daysInMonth !== undefined && d >= 1 && d <= daysInMonth
}

/**
 * The version a request uses (API rules §3): its `Svc-Version` header, or the partner's pin when
 * absent. Malformed → `invalid_api_version`; well-formed but unpublished → `unknown_api_version`;
 * a stable version older than the pin → `api_version_downgrade`; previews always allowed.
 */
export const resolveVersion = (
  header: string | undefined,
  pinned: ApiVersion,
  published: ReadonlyArray<string> = publishedVersions
): Effect.Effect<ApiVersion, InvalidApiVersion | UnknownApiVersion | ApiVersionDowngrade> => {
  if (header === undefined) return Effect.succeed(pinned)
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}(\.preview)?$/.test(header) || !isCalendarDate(header.slice(0, 10))) {
    return Effect.fail(new InvalidApiVersion({ message: "Svc-Version must be a date YYYY-MM-DD, optionally followed by .preview." }))
  }
  if (!published.includes(header)) {
    return Effect.fail(new UnknownApiVersion({ message: `Svc-Version ${header} is not published; published: ${published.join(", ")}.` }))
  }
  const version = header as ApiVersion
  if (!isPreviewVersion(version) && compareVersions(version, pinned) < 0) {
    return Effect.fail(new ApiVersionDowngrade({ message: `Svc-Version ${version} is older than this account's pinned version ${pinned}.` }))
  }
  return Effect.succeed(version)
}
