import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
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
 * Reads every file of `directory` with a known type (or only the files `names` lists), by file
 * name. Only these names are ever served: a request cannot reach any other file.
 */
export const loadAssetsFrom = (directory: string, names?: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, PortalAsset>> =>
  Effect.promise(async () => {
    const assets = new Map<string, PortalAsset>()
    for (const name of names ?? await readdir(directory)) {
      const contentType = contentTypes[extname(name)]
      if (contentType === undefined) continue
      const body = new Uint8Array(await readFile(`${directory}${name}`))
      const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
      assets.set(name, { body, contentType, etag })
    }
    return assets
  })

/** The files of {@link assetsDirectory}. */
export const loadAssets = loadAssetsFrom(assetsDirectory)

/**
 * Serves `GET {path}/{file}`: the asset, revalidated on each load (no-cache), with a 304 response when
 * unchanged; 404 for a name that is not one.
 */
export const serveAssets = (router: HttpRouter.HttpRouter, path: `/${string}`, assets: ReadonlyMap<string, PortalAsset>) =>
  router.add(
    "GET",
    `${path}/:file`,
    Effect.gen(function*() {
      const { file } = yield* HttpRouter.params
      const asset = file === undefined ? undefined : assets.get(file)
      if (asset === undefined) return HttpServerResponse.text("Not found", { status: 404, headers: { "x-content-type-options": "nosniff" } })
      const request = yield* HttpServerRequest.HttpServerRequest
      const headers = { etag: asset.etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" }
      if (request.headers["if-none-match"] === asset.etag) return HttpServerResponse.empty({ status: 304, headers })
      return HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
    })
  )
