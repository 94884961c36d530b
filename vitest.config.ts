import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // Chromium and PostgreSQL, found or installed and started before any file runs (npm test alone
    // must pass on a fresh machine).
    globalSetup: ["test/setup/prerequisites.ts"],
    // Files share their worker process: the service's modules (effect, viem, PGlite, the packages) are
    // evaluated once per worker instead of once per file. Each file still starts from the worker's
    // environment as spawned (the set-up file).
    isolate: false,
    setupFiles: ["test/setup/fileEnvironment.ts"],
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // A file per core and two more: most files spend much of their time waiting on a chain, a database,
    // a browser or a service they started, and with one more the cores still sat idle for stretches
    // (vitest's default, one less than the cores, would run one at a time on two cores).
    maxWorkers: availableParallelism() + 2,
    // Twice what the slowest tests without a timeout of their own take while four files share two
    // loaded cores (the HTTP fuzz table: about 50 s): a hang still fails, a busy machine does not.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // `expect.poll` waits for what a page or a job does next, through the service on a loaded machine:
    // as long as a browser action may take (`uiTimeoutMs`), not vitest's default second.
    expect: { poll: { timeout: 30_000 } }
  }
})
