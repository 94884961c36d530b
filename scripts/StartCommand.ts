/**
 * How `npm start` (and `npm run worker`, `npm run admin`) run the service, read from a checkout's
 * `package.json`: the environment the script sets (`NAME=value` before `node`), the Node flags it
 * passes and the built entry it runs. The bench and the fault tests start processes the same way, so a
 * change to the scripts reaches them too.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

/** A script's environment, Node flags and entry (`dist/main.mjs`), as its last `node` runs them. */
export interface StartCommand {
  readonly env: Record<string, string>
  readonly flags: ReadonlyArray<string>
  readonly entry: string
}

/** Reads the `start` (or `worker`, `admin`) script's last command from `root`'s `package.json`. */
export const startCommand = (root: string, script: "start" | "worker" | "admin" = "start"): StartCommand => {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
  const last = (scripts[script] ?? "").split("&&").at(-1) ?? ""
  const match = /^\s*((?:[A-Z_]+=\S+ )*)node ((?:--\S+ )*)(\S+)\s*$/.exec(last)
  if (match === null) throw new Error(`package.json's ${script} script does not end in a node command`)
  const words = (text: string | undefined) => text?.trim().split(" ").filter((word) => word !== "") ?? []
  const env = Object.fromEntries(words(match[1]).map((assignment) => assignment.split("=", 2) as [string, string]))
  return { env, flags: words(match[2]), entry: match[3]! }
}
