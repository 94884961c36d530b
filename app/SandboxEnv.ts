import { PrivateFiles } from "@paygate/adapters"
import { writeFile } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import type { SandboxIds, SandboxSecrets } from "./Bootstrap.ts"

/** Where the sandbox's credentials are kept for the shell: `sandbox.env` beside the embedded database (`data/sandbox.env`). */
export const sandboxEnvPath = (dataDir: string): string => join(dirname(dataDir), "sandbox.env")

/** How the start names the file: relative to where it was started when inside it. */
export const shownPath = (path: string): string => {
  const rel = relative(process.cwd(), path)
  return rel.startsWith("..") || rel === "" ? path : rel
}

// Single quotes keep the shell from reading anything in a value.
const quoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

/**
 * The file's text: `export` lines to `source`, named as the start's commands name them
 * (`$API_KEY` in the printed curl).
 */
export const sandboxEnvText = (baseUrl: string, ids: SandboxIds, secrets: SandboxSecrets, shown: string): string =>
  [
    `# paygate's sandbox, created on the first start. Load it into a shell: source ${shown}`,
    `export PAYGATE_URL=${quoted(baseUrl)}`,
    `export PARTNER_ID=${quoted(ids.partnerId)}`,
    `export API_KEY=${quoted(secrets.apiKey)}`,
    `export MERCHANT_ID=${quoted(ids.merchantId)}`,
    `export APP_ID=${quoted(ids.appId)}`,
    `export WALLET_API_KEY=${quoted(secrets.walletApiKey)}`,
    ``
  ].join("\n")

/** Writes the sandbox's credentials to `path`, owner-only (0600), replacing an earlier file. */
export const writeSandboxEnv = async (path: string, text: string): Promise<void> => {
  await PrivateFiles.makePrivateDirectory(dirname(path))
  await writeFile(path, text, { mode: PrivateFiles.fileMode })
  await PrivateFiles.restrictFile(path)
}
