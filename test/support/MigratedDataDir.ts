/**
 * This run's migrated embedded database as a data directory (made by the global set-up,
 * `MigratedTemplates.ts`), for the tests that start the service as a process on the embedded database.
 * A module of its own so that those tests do not load the adapters, as `MigratedTemplates.ts` does.
 */
import { execFile } from "node:child_process"
import { mkdir } from "node:fs/promises"
import { dirname } from "node:path"
import { promisify } from "node:util"
import { repoRoot } from "./ServiceProcess.ts"

/** Names the directory to the test workers. */
export const migratedDataDirVariable = "PAYGATE_TEST_PGLITE_DATA_DIR"

/**
 * Makes `dataDir` (not there yet) a copy of this run's migrated embedded database, for a start of the
 * service in `root` that does not test creating its database: the start then skips creating and
 * migrating it, and is otherwise a first start as from an empty directory (no partner yet; the local
 * keys, the chain's state and `sandbox.env` live beside the directory, not in it). Outside `npm test`,
 * or for another checkout's service (`PAYGATE_SERVICE_ROOT`, whose migrations may differ), the service
 * creates the directory itself.
 */
export const copyMigratedDatabase = async (dataDir: string, root: string = repoRoot): Promise<void> => {
  const migrated = process.env[migratedDataDirVariable]
  if (migrated === undefined || root !== repoRoot) return
  await mkdir(dirname(dataDir), { recursive: true })
  await mkdir(dataDir, { mode: 0o700 }) // fails when it is there already
  // coreutils' cp: node's fs.cp walks the thousand-odd files in JavaScript, at several times the CPU.
  await promisify(execFile)("cp", ["-a", `${migrated}/.`, dataDir])
}
