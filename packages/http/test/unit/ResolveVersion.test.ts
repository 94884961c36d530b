import { contractErrorCode, isContractError } from "@paygate/http"
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { resolveVersion } from "../../src/server/ResolveVersion.ts"

const resolve = (header: string | undefined, pinned = "2026-02-18", published?: ReadonlyArray<string>) => {
  const exit = Effect.runSyncExit(resolveVersion(header, pinned as "2026-02-18", published))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons[0]
  return failure?._tag === "Fail" && isContractError(failure.error) ? contractErrorCode(failure.error) : "defect"
}

describe("Svc-Version", () => {
  it("uses the pin when absent and accepts published versions", () => {
    expect(resolve(undefined)).toBe("2026-02-18")
    expect(resolve("2026-02-18")).toBe("2026-02-18")
    expect(resolve("2026-02-19.preview")).toBe("2026-02-19.preview")
  })

  it.each(["2026-2-18", "20260218", "2026-02-30", "2026-13-01", "2026-02-18.beta", "latest", "", " 2026-02-18", "2026-02-18.preview.preview"])(
    "rejects malformed %j with invalid_api_version",
    (header) => expect(resolve(header)).toBe("invalid_api_version")
  )

  it("rejects well-formed unpublished versions with unknown_api_version", () => {
    expect(resolve("2026-02-17")).toBe("unknown_api_version")
    expect(resolve("2027-01-01")).toBe("unknown_api_version")
    expect(resolve("2026-02-18.preview")).toBe("unknown_api_version")
    expect(resolve("2024-02-29")).toBe("unknown_api_version")
  })

  it("refuses a stable version older than the pin, but allows previews", () => {
    const published = ["2026-01-05", "2026-02-18", "2026-02-19.preview"]
    expect(resolve("2026-01-05", "2026-02-18", published)).toBe("api_version_downgrade")
    expect(resolve("2026-02-19.preview", "2026-02-18", published)).toBe("2026-02-19.preview")
    expect(resolve("2026-02-18", "2026-01-05", published)).toBe("2026-02-18")
  })

})
