import { defineConfig } from "vitest/config"

// The soak (`npm run soak`): half an hour of the cluster run under kills and a flapping RPC provider,
// on demand, never part of `npm test`. The same prerequisites as the tests (PostgreSQL, anvil).
export default defineConfig({
  test: {
    globalSetup: ["test/setup/prerequisites.ts"],
    include: ["test/soak/**/*.soak.ts"],
    // The run's minutes, its convergence and its checks.
    testTimeout: 4 * 3_600_000,
    hookTimeout: 120_000
  }
})
