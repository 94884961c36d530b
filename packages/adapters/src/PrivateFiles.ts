/**
 * Owner-only files: the embedded database's directory and the local key files beside it hold
 * every secret the service keeps (hashes, encrypted webhook secrets, the keys that decrypt them).
 * Directories are 0700 and files 0600 whatever the umask, and whatever modes PGlite gives the
 * files it unpacks (0666 for its initial cluster, configuration and WAL included).
 *
 * @module
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs"
import { chmod, mkdir } from "node:fs/promises"
import { join } from "node:path"

/** The mode of a private directory. */
export const directoryMode = 0o700

/** The mode of a private file. */
export const fileMode = 0o600

/** Creates `path` (and missing parents) owner-only; an existing directory is left as it is. */
export const makePrivateDirectory = async (path: string): Promise<void> => {
  await mkdir(path, { recursive: true, mode: directoryMode })
}

/** Makes one directory owner-only (not what is in it): nobody else can reach anything under it. */
export const restrictDirectory = (path: string): Promise<void> => chmod(path, directoryMode)

/** Makes one file owner-only. */
export const restrictFile = (path: string): Promise<void> => chmod(path, fileMode)

/**
 * Makes a directory and everything under it owner-only: directories 0700, files 0600. Symbolic
 * links are left alone (a link's target may be anything). A missing directory is no error.
 *
 * Synchronous on purpose: a database directory holds about a thousand files, which this walks in
 * milliseconds, whereas awaiting each `chmod` costs a turn of the event loop per file, and on a
 * loaded machine that stretched the shutdown by seconds. It runs at open and close, never while
 * requests are served.
 */
export const restrictTree = (path: string): void => {
  let stats
  try {
    stats = lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return
    throw error
  }
  if (stats.isSymbolicLink()) return
  if (!stats.isDirectory()) return chmodSync(path, fileMode)
  chmodSync(path, directoryMode)
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name)
    if (entry.isDirectory()) restrictTree(child)
    else if (entry.isFile()) chmodSync(child, fileMode)
  }
}
