/**
 * The generated blocks of `BENCHMARKS.md`: each between its own markers, rewritten by the run that
 * measured it, the hand-written text around them left alone.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"

/** Replaces the block of `file` between `begin` and `end` with `content` (appending the block when missing). */
export const writeBlock = (file: string, begin: string, end: string, content: string) => {
  const current = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n"
  const from = current.indexOf(begin)
  const to = current.indexOf(end)
  const block = `${begin}\n${content}\n${end}`
  writeFileSync(
    file,
    from === -1 || to === -1 || to < from
      ? `${current.trimEnd()}\n\n${block}\n`
      : `${current.slice(0, from)}${block}${current.slice(to + end.length)}`
  )
}
