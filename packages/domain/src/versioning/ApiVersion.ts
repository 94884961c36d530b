/** Published versions, oldest first (API rules §3). */
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

/** Whether a version is a preview (`YYYY-MM-DD.preview`): asked for per request, never pinned. */
export const isPreviewVersion = (version: string): boolean => version.endsWith(".preview")

/** Orders versions by date; a preview sorts after the stable version of the same date. */
export const compareVersions = (a: string, b: string): number => {
  const [dateA, dateB] = [a.slice(0, 10), b.slice(0, 10)]
  if (dateA !== dateB) return dateA < dateB ? -1 : 1
  return Number(isPreviewVersion(a)) - Number(isPreviewVersion(b))
}

/** Whether a string is a published stable version a partner can be pinned to. */
export const isPinnableVersion = (version: string): version is ApiVersion =>
  (publishedVersions as ReadonlyArray<string>).includes(version) && !isPreviewVersion(version)
