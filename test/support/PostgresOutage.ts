/**
 * A PostgreSQL outage of a set length on a server the test owns (`ThrowawayPostgres` of
 * `test/support`, never the shared `TEST_DATABASE_URL` server): `pg_ctl stop -m
 * fast` (every connection dropped, nothing accepted), a pause, `pg_ctl start`.
 *
 * `ThrowawayPostgres.restart` restarts at once; a stopped server must be started again with the
 * options it was started with (port, listen address, socket directory, passed on its command
 * line), so they are first written to `postgresql.auto.conf` with `ALTER SYSTEM`.
 */
import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import postgres from "postgres"

const run = promisify(execFile)
const pgBin = "/usr/lib/postgresql/15/bin"

const pgCtl = (...args: Array<string>) =>
  process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", join(pgBin, "pg_ctl"), ...args]) : run(join(pgBin, "pg_ctl"), args)

/** Settings a plain `pg_ctl start` must keep (the rest are performance only, kept as well). */
const kept = ["port", "listen_addresses", "unix_socket_directories", "fsync", "synchronous_commit", "full_page_writes"]

export interface Outage {
  /** When the server stopped accepting (after `pg_ctl stop` returned), and when it was back. */
  readonly stoppedAt: number
  readonly startedAt: number
}

/**
 * Stops the server of `url` for `pauseMs`, then starts it again; `onStopped` runs while it is
 * down. Resolves once it accepts connections again.
 */
export const stopFor = async (url: string, pauseMs: number, onStopped: () => Promise<void> = async () => {}): Promise<Outage> => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  let dataDir: string
  try {
    const [row] = await sql`SHOW data_directory`
    dataDir = row!.data_directory as string
    for (const name of kept) {
      const [setting] = await sql.unsafe(`SHOW ${name}`)
      const value = Object.values(setting!)[0] as string
      await sql.unsafe(`ALTER SYSTEM SET ${name} = '${value.replaceAll("'", "''")}'`)
    }
  } finally {
    await sql.end()
  }
  await pgCtl(`--pgdata=${dataDir}`, "--mode=fast", "--wait", "--timeout=60", "stop")
  const stoppedAt = Date.now()
  await Promise.all([onStopped(), new Promise((resolve) => setTimeout(resolve, pauseMs))])
  await pgCtl(`--pgdata=${dataDir}`, `--log=${join(dirname(dataDir), "postgres.log")}`, "--wait", "--timeout=60", "start")
  return { stoppedAt, startedAt: Date.now() }
}
