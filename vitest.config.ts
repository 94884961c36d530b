import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // Chromium and PostgreSQL, found or installed and started before any file runs (npm test alone
    // must pass on a fresh machine).
    globalSetup: ["test/setup/prerequisites.ts"],
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // A file per core, and at least two: most files spend their time waiting on a chain, a database or a
    // browser (vitest's default, one less than the cores, would run them one at a time on two cores).
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
})
