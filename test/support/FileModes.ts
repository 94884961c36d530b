/** File modes in tests: what under a path is readable or writable by anyone but its owner. */
import { lstat, readdir } from "node:fs/promises"
import { join } from "node:path"

/** Entries under `path` (itself included) not owner-only (directories 0700, files 0600), as `path mode`. */
export const widerThanOwner = async (path: string): Promise<Array<string>> => {
  const stats = await lstat(path)
  const mode = stats.mode & 0o777
  const wide = (stats.isDirectory() ? mode !== 0o700 : mode !== 0o600) ? [`${path} ${mode.toString(8)}`] : []
  if (stats.isDirectory()) for (const entry of await readdir(path)) wide.push(...await widerThanOwner(join(path, entry)))
  return wide
}
