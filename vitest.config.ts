import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // Chromium and PostgreSQL, found or installed and started before any file runs (npm test alone
    // must pass on a fresh machine).
    globalSetup: ["test/setup/prerequisites.ts"],
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000
  }
})
