import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readdir, readFile } from "node:fs/promises"
import { extname } from "node:path"
import { fileURLToPath } from "node:url"

/** One static file of the pages, held in memory. */
export interface PortalAsset {
  readonly body: Uint8Array
  readonly contentType: string
  /** Strong validator: a digest of the body. */
  readonly etag: string
}

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml"
}

/** The directory of the pages' scripts, styles and icons. */
export const assetsDirectory = fileURLToPath(new URL("./assets/", import.meta.url))

/**
 * Reads every file of {@link assetsDirectory} with a known type, by file name. Only these names are
 * ever served: a request cannot reach any other file.
 */
export const loadAssets: Effect.Effect<ReadonlyMap<string, PortalAsset>> = Effect.promise(async () => {
  const assets = new Map<string, PortalAsset>()
  for (const name of await readdir(assetsDirectory)) {
    const contentType = contentTypes[extname(name)]
    if (contentType === undefined) continue
    const body = new Uint8Array(await readFile(`${assetsDirectory}${name}`))
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
    assets.set(name, { body, contentType, etag })
  }
  return assets
})
