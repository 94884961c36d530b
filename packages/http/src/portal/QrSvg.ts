import { Effect } from "effect"

// Loaded on the first code drawn: most processes never draw one, and the library costs about 3 MB of memory.
let loading: Promise<typeof import("qrcode")> | undefined
const qrcode = Effect.promise(() => (loading ??= import("qrcode")))

/** Light modules around the code, as the QR standard asks (scanners need it to find the code). */
const quietZone = 4

/**
 * An SVG image of a QR code of `text` (byte mode, error correction M): one square unit per
 * module on a white background, dark runs of a row drawn as one rectangle each. Served as an image
 * of this origin, it needs no script or inline style under the pages' Content-Security-Policy.
 */
export const qrSvg = (text: string): Effect.Effect<string> =>
  Effect.map(qrcode, (library) => draw(library.create(text, { errorCorrectionLevel: "M" }).modules))

type Modules = ReturnType<typeof import("qrcode").create>["modules"]

const draw = (modules: Modules): string => {
  const size = modules.size + 2 * quietZone
  const runs: Array<string> = []
  for (let row = 0; row < modules.size; row++) {
    let column = 0
    while (column < modules.size) {
      if (modules.get(row, column) === 0) {
        column++
        continue
      }
      const start = column
      while (column < modules.size && modules.get(row, column) !== 0) column++
      runs.push(`M${start + quietZone} ${row + quietZone}h${column - start}v1h-${column - start}z`)
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${runs.join("")}"/></svg>`
}
