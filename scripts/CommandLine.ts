/**
 * What the developer scripts (`npm run pay`, `npm run subscribe`, `npm run webhooks`) share: every mistake is one line
 * on stderr and an exit code, never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from "node:util"

/** Prints one line on stderr and exits with `code`. */
export const fail = (message: string, code = 1): never => {
  console.error(message)
  process.exit(code)
}

/**
 * `parseArgs` with positionals allowed; an unknown option or a missing value ends the process
 * with parseArgs' own message and `helpHint` (e.g. `npm run pay -- --help`).
 */
export const parseCommandLine = <const Options extends NonNullable<ParseArgsConfig["options"]>>(options: Options, helpHint: string) => {
  try {
    return parseArgs({ allowPositionals: true, options })
  } catch (error) {
    return fail(`${(error as Error).message} (${helpHint})`, 2)
  }
}

/**
 * The wallet scripts' start: prints `usage` and exits on `--help`; else answers the option reader and the
 * one id the command takes (`what`, e.g. "payment id"), which `missing` tells how to give.
 */
export const optionsAndId = (
  parsed: { readonly values: Record<string, unknown>; readonly positionals: ReadonlyArray<string> },
  usage: string,
  what: string,
  missing: string
) => {
  const text = (name: string) => parsed.values[name] as string | undefined
  if (parsed.values.help === true) {
    console.log(usage)
    process.exit(0)
  }
  const [id, ...extra] = parsed.positionals
  if (id === undefined) fail(`Missing the ${what}: ${missing} (--help for more)`, 2)
  if (extra.length > 0) fail(`Unexpected argument ${JSON.stringify(extra[0])}: give one ${what} (--help for more)`, 2)
  return { text, id: id!, flag: (name: string) => parsed.values[name] === true }
}

/**
 * Asks for a secret on the terminal without echoing it (what is typed is never on screen, in the
 * shell's history or in `ps`); answers `undefined` when stdin is no terminal. Ctrl-C ends the process.
 */
export const askSecret = (question: string): Promise<string | undefined> => {
  const input = process.stdin
  if (!input.isTTY) return Promise.resolve(undefined)
  process.stderr.write(question)
  input.setRawMode(true)
  input.resume()
  input.setEncoding("utf8")
  let typed = ""
  return new Promise((resolve) => {
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\u0003") {
          process.stderr.write("\n")
          process.exit(130)
        } else if (char === "\r" || char === "\n") {
          input.setRawMode(false)
          input.pause()
          input.off("data", onData)
          process.stderr.write("\n")
          return resolve(typed)
        } else if (char === "\u007f" || char === "\b") {
          typed = typed.slice(0, -1)
        } else {
          typed += char
        }
      }
    }
    input.on("data", onData)
  })
}
