/**
 * What the developer scripts (`npm run pay`, `npm run webhooks`) share: every mistake is one line
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
