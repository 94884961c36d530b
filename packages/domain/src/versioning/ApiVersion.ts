import { Effect } from "effect"
import { ApiVersionDowngrade, InvalidApiVersion, UnknownApiVersion } from "../errors/ApiErrors.ts"

/** Published versions, oldest first (contract §4). */
export const publishedVersions = ["2026-02-18", "2026-02-19.preview"] as const
/** A published version. */
export type ApiVersion = (typeof publishedVersions)[number]

/** The newest stable version: what new partners are pinned to. */
export const latestStableVersion: ApiVersion = "2026-02-18"

/**
 * Every behaviour change between versions, each with the version that introduced it. Code asks
 * {@link hasChange} instead of comparing versions itself, so differences live in this one list.
 */
export const versionChanges = {
  /** `collectData.fields` (deprecated) is sent empty; only `schema` and `url` carry the form. */
  omitCollectDataFields: "2026-02-19.preview"
} as const satisfies Record<string, ApiVersion>

/** Whether `version` includes a change of {@link versionChanges}. */
export const hasChange = (version: ApiVersion, change: keyof typeof versionChanges): boolean =>
  compareVersions(version, versionChanges[change]) >= 0

const isPreview = (version: string) => version.endsWith(".preview")

/** Orders versions by date; a preview sorts after the stable version of the same date. */
export const compareVersions = (a: string, b: string): number => {
  const [dateA, dateB] = [a.slice(0, 10), b.slice(0, 10)]
  if (dateA !== dateB) return dateA < dateB ? -1 : 1
  return Number(isPreview(a)) - Number(isPreview(b))
}

const isCalendarDate = (date: string) => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
  return daysInMonth !== undefined && d >= 1 && d <= daysInMonth
}

/**
 * The version a request uses: its `Svc-Version` header, or the partner's pin when absent.
 * Malformed → `invalid_api_version`; well-formed but unpublished → `unknown_api_version`;
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
  if (!isPreview(version) && compareVersions(version, pinned) < 0) {
    return Effect.fail(new ApiVersionDowngrade({ message: `Svc-Version ${version} is older than this account's pinned version ${pinned}.` }))
  }
  return Effect.succeed(version)
}

/** Whether a string is a published stable version a partner can be pinned to. */
export const isPinnableVersion = (version: string): version is ApiVersion =>
  (publishedVersions as ReadonlyArray<string>).includes(version) && !isPreview(version)
