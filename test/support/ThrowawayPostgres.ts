/**
 * A PostgreSQL server of the test's own, which it may restart: started with
 * `scripts/ci-postgres.sh` (the CI set-up: `initdb` in a fresh temporary directory, as user
 * `postgres` when run as root; installs `postgresql-15` when missing), restarted and stopped with
 * `pg_ctl`. The shared CI server (`TEST_DATABASE_URL`) must never be restarted: other test files
 * use it at the same time.
 */
import { execFile } from "node:child_process"
import { rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
const pgBin = "/usr/lib/postgresql/15/bin"

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/paygate_test` */
  readonly url: string
  /** `pg_ctl restart -m fast`: every connection is dropped, the server is back when this resolves. */
  readonly restart: () => Promise<void>
  /** Stops the server and removes its directory. */
  readonly stop: () => Promise<void>
}

// pg_ctl refuses to run as root: as root, run it as the `postgres` user (who owns the directory).
const pgCtl = (...args: Array<string>) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", join(pgBin, "pg_ctl"), ...args]) : run(join(pgBin, "pg_ctl"), args)

export const startThrowawayPostgres = async (): Promise<ThrowawayPostgres> => {
  const { stderr, stdout } = await run("bash", [join(repoRoot, "scripts/ci-postgres.sh")], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 })
  const url = /TEST_DATABASE_URL=(\S+)/.exec(stdout)?.[1]
  const dataDir = /--pgdata=(\S+) stop/.exec(stderr)?.[1]
  if (url === undefined || dataDir === undefined) throw new Error(`scripts/ci-postgres.sh printed no URL:\n${stdout}\n${stderr}`)
  // The server log must go to a file: otherwise the restarted server would hold our pipe open.
  const log = join(dirname(dataDir), "postgres.log")
  return {
    url,
    restart: async () => {
      await pgCtl(`--pgdata=${dataDir}`, `--log=${log}`, "--mode=fast", "--wait", "--timeout=60", "restart")
    },
    stop: async () => {
      await pgCtl(`--pgdata=${dataDir}`, "--mode=immediate", "--wait", "stop").catch(() => undefined)
      await rm(dirname(dataDir), { recursive: true, force: true })
    }
  }
}
