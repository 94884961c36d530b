import { defineConfig } from "vitest/config"

// The edit loop's fast tier (`npm run test:unit`): the domain's tests and the pure ones of the other
// packages — no database, chain, browser or process, so nothing to install or start.
export default defineConfig({
  test: {
    include: ["packages/domain/test/**/*.test.ts", "packages/*/test/unit/**/*.test.ts", "packages/http/test/wire/**/*.test.ts"],
    testTimeout: 60_000,
    // Pure modules: one evaluation per worker instead of one per file (most of the time was imports).
    isolate: false
  }
})
