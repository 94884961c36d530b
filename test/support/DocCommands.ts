/**
 * The shell commands and links of the documentation (README.md, BENCHMARKS.md, docs/*.md and the
 * packages' READMEs), read the way a reader pastes them: every line of a ```sh block, with `\`
 * continuations joined and `#` comments dropped.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { repoRoot } from "./ServiceProcess.ts"

/** Every documentation file, relative to the repository's root. */
export const documentationFiles: ReadonlyArray<string> = [
  "README.md",
  "BENCHMARKS.md",
  ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`),
  ...readdirSync(join(repoRoot, "packages")).map((p) => `packages/${p}/README.md`).filter((f) => existsSync(join(repoRoot, f)))
]

export const readDoc = (file: string): string => readFileSync(join(repoRoot, file), "utf8")

/** One command as shown: where, and its text on one line. */
export interface DocCommand {
  readonly file: string
  readonly line: number
  readonly text: string
}

// Drops a `#` comment that starts outside quotes after whitespace (or at the start of the line).
const withoutComment = (line: string): string => {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
    } else if (c === "'" || c === "\"") {
      quote = c
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i)
    }
  }
  return line
}

/** The commands of every ```sh block of `file`, in order. */
export const shellCommands = (file: string): ReadonlyArray<DocCommand> => {
  const lines = readDoc(file).split("\n")
  const commands: Array<DocCommand> = []
  let inBlock = false
  let pending: { line: number; text: string } | undefined
  lines.forEach((raw, index) => {
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock && /^\s*```sh\s*$/.test(raw)
      return
    }
    if (!inBlock) return
    const text = withoutComment(raw).trim()
    if (text === "" && pending === undefined) return
    const continued = text.endsWith("\\")
    const part = continued ? text.slice(0, -1).trim() : text
    pending = pending === undefined ? { line: index + 1, text: part } : { line: pending.line, text: `${pending.text} ${part}` }
    if (!continued) {
      if (pending.text !== "") commands.push({ file, ...pending })
      pending = undefined
    }
  })
  return commands
}

// The index of the `)` that closes a `$(` opened before `from`: nested parentheses count, quoted ones do not.
const closingParen = (command: string, from: number): number => {
  let depth = 1
  for (let i = from; i < command.length; i++) {
    const c = command[i]!
    if (c === "'" || c === "\"") {
      const end = command.indexOf(c, i + 1)
      if (end < 0) return -1
      i = end
    } else if (c === "(") depth++
    else if (c === ")" && --depth === 0) return i
  }
  return -1
}

/**
 * Splits a command line into words as a POSIX shell would for simple cases (quotes, `$(…)` kept
 * whole), with the operators `&&`, `|`, `;` and `&` as words of their own.
 */
export const words = (command: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let word = ""
  let started = false
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!
    if (c === "'" || c === "\"") {
      const end = command.indexOf(c, i + 1)
      if (end < 0) throw new Error(`unbalanced ${c} in: ${command}`)
      word += command.slice(i + 1, end)
      started = true
      i = end
    } else if (c === "$" && command[i + 1] === "(") {
      const end = closingParen(command, i + 2)
      if (end < 0) throw new Error(`unbalanced $( in: ${command}`)
      word += command.slice(i, end + 1)
      started = true
      i = end
    } else if (/\s/.test(c)) {
      if (started) out.push(word)
      word = ""
      started = false
    } else if (c === "&" || c === "|" || c === ";") {
      if (started) out.push(word)
      const double = command[i + 1] === c
      out.push(double ? c + c : c)
      if (double) i++
      word = ""
      started = false
    } else {
      word += c
      started = true
    }
  }
  if (started) out.push(word)
  return out
}

/** The simple commands of a command line: its words split at `&&`, `|`, `;` and `&`. */
export const simpleCommands = (command: string): ReadonlyArray<ReadonlyArray<string>> => {
  const parts: Array<Array<string>> = [[]]
  for (const word of words(command)) {
    if (["&&", "||", "|", ";", "&"].includes(word)) parts.push([])
    else parts[parts.length - 1]!.push(word)
  }
  return parts.filter((part) => part.length > 0)
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export const slug = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

/** The anchors of a markdown file's headings (a repeated heading gets `-1`, `-2`, …). */
export const anchors = (text: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let inBlock = false
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) inBlock = !inBlock
    const heading = inBlock ? null : /^#{1,6}\s+(.*)$/.exec(line)
    if (heading === null) continue
    const base = slug(heading[1]!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    out.add(count === 0 ? base : `${base}-${count}`)
  }
  return out
}

/** The relative links of a markdown file (images included), outside code blocks and code spans. */
export const relativeLinks = (text: string): ReadonlyArray<{ readonly target: string; readonly fragment: string | undefined }> => {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "")
  return [...prose.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]*))?\)/g)]
    .map((m) => ({ target: m[1]!, fragment: m[2] }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}
