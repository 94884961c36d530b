/**
 * An exclusive lock on an embedded database directory. PGlite happily opens one data directory
 * twice (in two processes, or twice in one), and two writers corrupt it; the lock refuses the
 * second opener instead.
 *
 * The lock is a file beside the directory (`<dataDir>.lock`): PGlite will not initialise a
 * directory that already contains a foreign file. It holds the owner's pid and, once the owner
 * serves the database, the port it listens on (so operator tools can connect to a running
 * service instead of opening the directory). A lock left by a process that is gone (crash,
 * container restart) is taken over.
 *
 * @module
 */
import { readFile, rm, writeFile } from "node:fs/promises"
import { resolve } from "node:path"
import { fileMode } from "./PrivateFiles.ts"

// Locks this process holds, by absolute path: a second open in the same process is refused too.
const held = new Set<string>()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The lock file of a data directory. */
export const lockPathOf = (dataDir: string): string => `${resolve(dataDir)}.lock`

/** A held lock. */
export interface DataDirLock {
  /** Records the port the owner serves the database on. */
  readonly publishPort: (port: number) => Promise<void>
  readonly release: () => Promise<void>
}

/** Who holds a data directory's lock. */
export interface LockOwner {
  readonly pid: number
  /** The port the owner serves on, once it does. */
  readonly port: number | undefined
}

const readLock = async (path: string): Promise<LockOwner | undefined> => {
  const [pid, port] = (await readFile(path, "utf8").catch(() => "")).split("\n").map((line) => Number(line.trim()))
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 0) return undefined
  return { pid, port: port !== undefined && Number.isSafeInteger(port) && port > 0 ? port : undefined }
}

// Whether `owner` still holds the lock at `path`. Our own pid without an entry in `held` is a
// lock left by an earlier run that happened to have our pid.
const isLive = (owner: LockOwner, path: string): boolean =>
  owner.pid === process.pid ? held.has(path) : isAlive(owner.pid)

/** The live owner of `dataDir`'s lock, if any. */
export const ownerOf = async (dataDir: string): Promise<LockOwner | undefined> => {
  const path = lockPathOf(dataDir)
  const owner = await readLock(path)
  return owner !== undefined && isLive(owner, path) ? owner : undefined
}

/** Another live process (or this one) holds the lock: the message says which, for the person who started us. */
export class DataDirInUse extends Error {
  readonly pid: number
  constructor(dataDir: string, pid: number) {
    super(`the database in ${dataDir} is used by process ${pid}: is paygate already running?`)
    this.pid = pid
  }
}

/** Takes the lock of `dataDir`. Rejects when another live process, or this one, holds it. */
export const acquireDataDirLock = async (dataDir: string): Promise<DataDirLock> => {
  const path = lockPathOf(dataDir)
  if (held.has(path)) throw new DataDirInUse(dataDir, process.pid)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: "wx", mode: fileMode })
      held.add(path)
      return {
        publishPort: (port) => writeFile(path, `${process.pid}\n${port}\n`),
        release: async () => {
          held.delete(path)
          await rm(path, { force: true })
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const owner = await readLock(path)
      if (owner !== undefined && isLive(owner, path)) {
        throw new DataDirInUse(dataDir, owner.pid)
      }
      await rm(path, { force: true })
    }
  }
  throw new Error(`Could not take the lock ${path}.`)
}
