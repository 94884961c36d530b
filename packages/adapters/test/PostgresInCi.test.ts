import { describe, expect, it } from "@effect/vitest"
import { databasesUnderTest } from "./support/TestDatabase.ts"

// The PostgreSQL suites register only when TEST_DATABASE_URL is set. CI must always set it
// (scripts/ci-postgres.sh), so a CI run without it fails here instead of silently running less.
describe("adapter suites in CI", () => {
  it("run on PostgreSQL whenever CI=true", () => {
    const names = databasesUnderTest.map((db) => db.name)
    expect(names).toContain("PGlite")
    if (process.env.CI === "true") {
      expect(names, "CI=true but TEST_DATABASE_URL is not set: run `eval \"$(bash scripts/ci-postgres.sh)\"` first").toContain("PostgreSQL")
    }
  })
})
