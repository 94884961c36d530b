/**
 * How `npm start` runs the API, read from a checkout's `package.json`: the environment its script
 * sets (`NAME=value` before `node`) and the Node flags it passes. The bench and the fault tests
 * start API processes the same way, so a change to the start script reaches them too.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** The start script's environment and Node flags (before `app/main.ts`). */
export interface StartCommand {
  readonly env: Record<string, string>
  readonly flags: ReadonlyArray<string>
}

/** Reads `npm start`'s environment and Node flags from `root`'s `package.json`. */
export const startCommand = (root: string): StartCommand => {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
  const match = /((?:[A-Z_]+=\S+ )*)node ((?:--\S+ )*)app\/main\.ts/.exec(scripts.start ?? "")
  const words = (text: string | undefined) => text?.trim().split(" ").filter((word) => word !== "") ?? []
  const env = Object.fromEntries(words(match?.[1]).map((assignment) => assignment.split("=", 2) as [string, string]))
  return { env, flags: words(match?.[2]) }
}
