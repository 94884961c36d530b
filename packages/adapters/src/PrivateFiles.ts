/**
 * Owner-only files: the embedded database's directory and the local key files beside it hold
 * every secret the service keeps (hashes, encrypted webhook secrets, the keys that decrypt them).
 * Directories are 0700 and files 0600 whatever the umask, and whatever modes PGlite gives the
 * files it unpacks (0666 for its initial cluster, configuration and WAL included).
 *
 * @module
 */
import { chmod, lstat, mkdir, readdir } from "node:fs/promises"
import { join } from "node:path"

/** The mode of a private directory. */
export const directoryMode = 0o700

/** The mode of a private file. */
export const fileMode = 0o600

/** Creates `path` (and missing parents) owner-only; an existing directory is left as it is. */
export const makePrivateDirectory = async (path: string): Promise<void> => {
  await mkdir(path, { recursive: true, mode: directoryMode })
}

/** Makes one file owner-only. */
export const restrictFile = (path: string): Promise<void> => chmod(path, fileMode)

/**
 * Makes a directory and everything under it owner-only: directories 0700, files 0600. Symbolic
 * links are left alone (a link's target may be anything). A missing directory is no error.
 */
export const restrictTree = async (path: string): Promise<void> => {
  const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    throw error
  })
  if (stats === undefined || stats.isSymbolicLink()) return
  if (!stats.isDirectory()) return chmod(path, fileMode)
  await chmod(path, directoryMode)
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name)
    if (entry.isDirectory()) await restrictTree(child)
    else if (entry.isFile()) await chmod(child, fileMode)
  }
}
