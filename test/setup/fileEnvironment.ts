/**
 * Vitest set-up file, run before each test file. Test files share their worker process
 * (`isolate: false`: importing the service's modules once per worker instead of once per file
 * is most of the suite's CPU saved), so each file starts from the environment the worker
 * started with, whatever the file before it set or deleted.
 *
 * Effect's default `ConfigProvider` copies `process.env` the first time a program reads its
 * configuration, and keeps that copy for the process: it is dropped here too, so the servers
 * a file builds read the environment the file set.
 */
import { Config, ConfigProvider, Effect } from "effect"

const pristineKey = Symbol.for("paygate/test/pristineEnvironment")
const holder = globalThis as { [pristineKey]?: Record<string, string | undefined> }

// The first file of a worker runs this before its own code: the worker's environment as spawned.
const pristine = holder[pristineKey] ??= { ...process.env }

for (const name of Object.keys(process.env)) {
  if (!(name in pristine)) delete process.env[name]
}
Object.assign(process.env, pristine)

// Where `Context.Reference` keeps its computed default value (effect's `Context.ts`).
const forgetEnvironmentCopy = () => delete (ConfigProvider.ConfigProvider as unknown as Record<string, unknown>)["~effect/Context/defaultValue"]

// Checked each time, so that an effect release keeping the copy elsewhere fails here, not as a test reading stale settings.
const probe = "PAYGATE_TEST_ENVIRONMENT_PROBE"
for (const value of ["a", "b"]) {
  process.env[probe] = value
  forgetEnvironmentCopy()
  if (Effect.runSync(Config.String(probe)) !== value) throw new Error("Effect's default ConfigProvider kept an old copy of process.env")
}
delete process.env[probe]
forgetEnvironmentCopy()
