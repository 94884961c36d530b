import { describe, expect, it } from "@effect/vitest"
import { databasesUnderTest } from "./support/TestDatabase.ts"

// The PostgreSQL suites register only when TEST_DATABASE_URL is set. The test run's global set-up
// (test/setup/prerequisites.ts) always sets it, starting a throwaway server when none is given, so a
// run without it fails here instead of silently running less.
describe("adapter suites", () => {
  it("run on PGlite and on PostgreSQL", () => {
    const names = databasesUnderTest.map((db) => db.name)
    expect(names).toContain("PGlite")
    expect(names, "TEST_DATABASE_URL is not set: run the tests with `npm test`, which starts PostgreSQL").toContain("PostgreSQL")
  })
})
