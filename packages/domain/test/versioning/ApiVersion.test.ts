import { describe, expect, it } from "vitest"
import { compareVersions, hasChange, isPinnableVersion, isPreviewVersion } from "../../src/versioning/ApiVersion.ts"

describe("API versions", () => {
  it("tells which changes a version has and pins only stable versions", () => {
    expect(hasChange("2026-02-18", "omitCollectDataFields")).toBe(false)
    expect(hasChange("2026-02-19.preview", "omitCollectDataFields")).toBe(true)
    expect(isPinnableVersion("2026-02-18")).toBe(true)
    expect(isPinnableVersion("2026-02-19.preview")).toBe(false)
  })

  it("orders by date, a preview after the stable version of its date", () => {
    expect(isPreviewVersion("2026-02-19.preview")).toBe(true)
    expect(isPreviewVersion("2026-02-18")).toBe(false)
    expect(compareVersions("2026-01-05", "2026-02-18")).toBeLessThan(0)
    expect(compareVersions("2026-02-18.preview", "2026-02-18")).toBeGreaterThan(0)
    expect(compareVersions("2026-02-18", "2026-02-18")).toBe(0)
  })
})
